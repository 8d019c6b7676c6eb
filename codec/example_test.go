package codec_test

import (
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/goredisson/redisson/codec"
)

// Account is the Go side of a Java class:
//
//	package com.example;
//	public class Account { String owner; long balance; Long limit; List<String> tags; }
type Account struct {
	Owner   string   `json:"owner"`
	Balance int64    `json:"balance"` // Java long: written plain
	Limit   *int64   `json:"limit"`   // Java Long: written ["java.lang.Long", n]
	Tags    []string `json:"tags"`    // Java List<String>: written ["java.util.ArrayList", [...]]
}

// JsonJackson writes what Java's JsonJacksonCodec writes for the same
// object, and reads it back into the registered Go type.
func ExampleJsonJackson() {
	types := codec.NewTypes().MustRegister("com.example.Account", Account{})
	c := codec.JsonJackson(types)

	limit := int64(500)
	data, err := c.Encode(Account{Owner: "ann", Balance: 120, Limit: &limit, Tags: []string{"vip"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(data))

	var v any // the registered class decodes to its Go type, even into an any
	if err := c.Decode(data, &v); err != nil {
		panic(err)
	}
	fmt.Printf("%T %s\n", v, v.(Account).Owner)

	long, _ := c.Encode(int64(42)) // a Go int64 is a java.lang.Long
	fmt.Println(string(long))
	// Output:
	// {"@class":"com.example.Account","balance":120,"limit":["java.lang.Long",500],"owner":"ann","tags":["java.util.ArrayList",["vip"]]}
	// codec_test.Account ann
	// ["java.lang.Long",42]
}

// MsgPackJackson writes the same type information in MessagePack.
func ExampleMsgPackJackson() {
	c := codec.MsgPackJackson(nil)
	data, _ := c.Encode(int64(42))
	fmt.Println(hex.EncodeToString(data))

	var v any
	_ = c.Decode(data, &v)
	fmt.Printf("%T %v\n", v, v)
	// Output:
	// 92ae6a6176612e6c616e672e4c6f6e672a
	// int64 42
}

// An object of a class Go does not know decodes to a map that keeps its
// "@class", and encodes back to the same bytes.
func ExampleJsonJackson_unknownClass() {
	c := codec.JsonJackson(nil)
	var v any
	_ = c.Decode([]byte(`{"@class":"com.example.Audit","at":["java.lang.Long",1700000000000],"by":"ops"}`), &v)
	fmt.Println(v)
	back, _ := c.Encode(v)
	fmt.Println(string(back))
	// Output:
	// map[@class:com.example.Audit at:1700000000000 by:ops]
	// {"@class":"com.example.Audit","at":["java.lang.Long",1700000000000],"by":"ops"}
}

// TypedJsonJackson has no type information: the Go type decoded into plays
// the role of Java's TypedJsonJacksonCodec(Account.class).
func ExampleTypedJsonJackson() {
	c := codec.TypedJsonJackson()
	data, _ := c.Encode(Account{Owner: "bob", Balance: 5, Tags: []string{}})
	fmt.Println(string(data))
	var a Account
	_ = c.Decode(data, &a)
	fmt.Println(a.Owner, a.Balance)
	// Output:
	// {"balance":5,"owner":"bob","tags":[]}
	// bob 5
}

// The codecs of one scalar.
func ExampleLong() {
	data, _ := codec.Long().Encode(-7)
	var n int64
	_ = codec.Long().Decode([]byte("+12"), &n)
	s, _ := codec.String().Encode("héllo")
	fmt.Println(string(data), n, hex.EncodeToString(s))
	// Output: -7 12 68c3a96c6c6f
}

// Register a Java enum as a Go string type: plain at the top and in fields,
// wrapped with its class where Java declares an Object.
func ExampleTypes_Register() {
	type Level string
	types := codec.NewTypes()
	if err := types.Register("com.example.Level", Level("")); err != nil {
		panic(err)
	}
	c := codec.JsonJackson(types)
	top, _ := c.Encode(Level("HIGH"))
	inList, _ := c.Encode([]any{Level("HIGH")})
	fmt.Println(string(top), string(inList))
	// Output: "HIGH" ["java.util.ArrayList",[["com.example.Level","HIGH"]]]
}

// Invoice is the Go side of a Java class with a Date, a UUID and a
// BigDecimal:
//
//	public class Invoice { UUID id; Date issued; BigDecimal total; }
type Invoice struct {
	ID     uuid.UUID     `json:"id"`
	Issued time.Time     `json:"issued"`
	Total  codec.Decimal `json:"total"`
}

// time.Time is a java.util.Date, uuid.UUID a java.util.UUID and
// codec.Decimal a java.math.BigDecimal that keeps its digits. With
// UUIDTypeInfo the codec writes UUIDs as Redisson 4.2 and later do.
func ExampleJsonJackson_javaTypes() {
	types := codec.NewTypes().MustRegister("com.example.Invoice", Invoice{})
	inv := Invoice{
		ID:     uuid.MustParse("0f8fad5b-d9cb-469f-a165-70867728950e"),
		Issued: time.UnixMilli(1700000000123),
		Total:  codec.Decimal("19.990"),
	}
	for _, c := range []codec.Codec{codec.JsonJackson(types), codec.JsonJackson(types, codec.UUIDTypeInfo())} {
		data, err := c.Encode(inv)
		if err != nil {
			panic(err)
		}
		fmt.Println(string(data))
	}

	// What has no Java form fails at Encode, naming the type and the path.
	type Job struct {
		Timeout time.Duration `json:"timeout"`
	}
	_, err := codec.TypedJsonJackson().Encode(Job{Timeout: time.Second})
	fmt.Println(errors.Is(err, codec.ErrUnsupportedType), err)
	// Output:
	// {"@class":"com.example.Invoice","id":"0f8fad5b-d9cb-469f-a165-70867728950e","issued":["java.util.Date",1700000000123],"total":["java.math.BigDecimal",19.990]}
	// {"@class":"com.example.Invoice","id":["java.util.UUID","0f8fad5b-d9cb-469f-a165-70867728950e"],"issued":["java.util.Date",1700000000123],"total":["java.math.BigDecimal",19.990]}
	// true codec TypedJsonJackson: cannot encode: codec_test.Job: at .timeout: unsupported Go type time.Duration: Redisson's mapper refuses java.time.Duration (no jackson-datatype-jsr310 module); store an integer with its unit in the name, e.g. d.Milliseconds()
}

// Task leaves out what it has not set: omitzero and omitempty work as in
// encoding/json, and Java's mapper reads a missing property as null.
type Task struct {
	ID    uuid.UUID `json:"id,omitzero"`    // Java UUID: null until assigned
	Due   time.Time `json:"due,omitzero"`   // Java Date: null, not the year 1
	Tags  []string  `json:"tags,omitempty"` // Java List<String>: null when empty
	Title string    `json:"title"`
}

// Fields tagged omitzero or omitempty are left out while they are zero
// (empty), and read back as their Go zero value.
func ExampleJsonJackson_omitzero() {
	c := codec.JsonJackson(codec.NewTypes().MustRegister("com.example.Task", Task{}))

	data, err := c.Encode(Task{Title: "draft"})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(data))

	due := time.Date(2023, 11, 14, 22, 13, 20, 0, time.UTC)
	data, _ = c.Encode(Task{Due: due, Title: "release"})
	fmt.Println(string(data))

	var back Task
	if err := c.Decode([]byte(`{"@class":"com.example.Task","title":"from Java"}`), &back); err != nil {
		panic(err)
	}
	fmt.Println(back.ID == uuid.Nil, back.Due.IsZero(), back.Tags == nil, back.Title)
	// Output:
	// {"@class":"com.example.Task","title":"draft"}
	// {"@class":"com.example.Task","due":["java.util.Date",1700000000000],"title":"release"}
	// true true true from Java
}
