// Package get is "redisson get": a bucket's value, decoded with a codec
// and printed as JSON, or its raw bytes.
package get

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/conn"
)

const getDescription = `
Prints the value of the bucket (Redisson's RBucket) or atomic long called NAME,
decoded with the codec the Java side uses, as indented JSON. An object of a
Java class prints as a JSON object with its "@class"; a java.lang.Long and an
Integer both print as numbers. --raw prints the stored bytes as they are.

Codecs (--codec), as named by Java's org.redisson classes:
  json       JsonJacksonCodec (default)
  msgpack    MsgPackJacksonCodec
  typedjson  TypedJsonJacksonCodec (JSON without type information)
  string     StringCodec (also an RAtomicLong's decimal value)
  long       LongCodec
  bytes      ByteArrayCodec (prints base64)

Exit codes: 0 printed, 1 no such key, another Redis type under NAME, bytes the
codec cannot read (try --raw or another --codec), or Redis failing; 2 usage.
`

const getExamples = `  redisson get person:7
  redisson get --codec msgpack cache:user:42
  redisson get --codec long visits
  redisson get --raw person:7 | xxd
`

// Codecs are the codecs of --codec.
var Codecs = map[string]func() codec.Codec{
	"json":      func() codec.Codec { return codec.JsonJackson(nil) },
	"msgpack":   func() codec.Codec { return codec.MsgPackJackson(nil) },
	"typedjson": codec.TypedJsonJackson,
	"string":    codec.String,
	"long":      codec.Long,
	"bytes":     codec.ByteArray,
}

// CodecJava names the Java codec of each --codec.
var CodecJava = map[string]string{
	"json":      "JsonJacksonCodec",
	"msgpack":   "MsgPackJacksonCodec",
	"typedjson": "TypedJsonJacksonCodec",
	"string":    "StringCodec",
	"long":      "LongCodec",
	"bytes":     "ByteArrayCodec",
}

// Command runs "redisson get" with its arguments and returns the exit code.
func Command(args []string) int {
	fs := cliflag.NewFlagSet("get", "redisson get [--codec C] [--raw] [connection flags] NAME", getDescription, getExamples)
	var cf conn.Flags
	cf.Register(fs)
	codecName := fs.String("codec", "json", "`codec` the value was written with: json, msgpack, typedjson, string, long, bytes")
	raw := fs.Bool("raw", false, "print the stored bytes as they are, not decoded")
	pos, code, done := cliflag.ParseFlags(fs, args, true)
	if done {
		return code
	}
	newCodec, ok := Codecs[*codecName]
	if !ok {
		names := make([]string, 0, len(Codecs))
		for n := range Codecs {
			names = append(names, n)
		}
		sort.Strings(names)
		return cliflag.UsageError(fs, "unknown --codec %q (want one of %s)", *codecName, strings.Join(names, ", "))
	}
	switch {
	case len(pos) != 1:
		return cliflag.UsageError(fs, "want exactly one NAME, got %d arguments", len(pos))
	case pos[0] == "":
		return cliflag.UsageError(fs, "NAME must not be empty")
	}
	name := pos[0]
	ctx, cancel := context.WithTimeout(context.Background(), 4*cf.Timeout)
	defer cancel()
	cn, code := conn.ConnectOrExit(ctx, fs, &cf, nil)
	if cn == nil {
		return code
	}
	defer cn.Close()
	if err := Value(ctx, os.Stdout, cn.RDB, name, newCodec(), *raw); err != nil {
		return cliflag.Errorf(fs.Name(), "%v", err)
	}
	return cliflag.ExitOK
}

// ErrNoValue is get's error for a missing key.
var ErrNoValue = errors.New("no value")

// Value writes the value under name to w: the stored bytes with raw,
// otherwise decoded with c and printed as indented JSON.
func Value(ctx context.Context, w io.Writer, rdb redis.UniversalClient, name string, c codec.Codec, raw bool) error {
	if raw {
		data, err := rdb.Get(ctx, name).Bytes()
		switch {
		case errors.Is(err, redis.Nil):
			return fmt.Errorf("%s: %w", name, ErrNoValue)
		case err != nil:
			return explainGetError(ctx, rdb, name, getError(err))
		}
		_, err = w.Write(data)
		return err
	}
	// A bucket is made from a client; this one only reads, so it leaves no
	// registration record behind.
	client, err := redisson.New(rdb, redisson.WithRegistration(redisson.RegistrationOptions{Disabled: true}))
	if err != nil {
		return err
	}
	defer func() { _ = client.Close() }()
	v, found, err := redisson.NewBucket[any](client, name, c).Get(ctx)
	switch {
	case err != nil:
		return explainGetError(ctx, rdb, name, err)
	case !found:
		return fmt.Errorf("%s: %w", name, ErrNoValue)
	}
	out, err := PrintJSON(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", out)
	return err
}

// DecodeValue decodes stored bytes with c into what get prints: a value
// of PrintJSON.
func DecodeValue(c codec.Codec, data []byte) (any, error) {
	var v any
	if err := c.Decode(data, &v); err != nil {
		return nil, err
	}
	return Printable(v), nil
}

// PrintJSON is get's rendering of a decoded value: indented JSON.
func PrintJSON(v any) ([]byte, error) {
	return json.MarshalIndent(Printable(v), "", "  ")
}

// getError is the error of a raw GET: ErrWrongType for Redis' WRONGTYPE,
// so that explainGetError can say what the key holds.
func getError(err error) error {
	var re redis.Error
	if errors.As(err, &re) && strings.HasPrefix(re.Error(), "WRONGTYPE") {
		return redisson.ErrWrongType
	}
	return fmt.Errorf("get: %w", err)
}

// explainGetError says what to try next.
func explainGetError(ctx context.Context, rdb redis.UniversalClient, name string, err error) error {
	switch {
	case errors.Is(err, redisson.ErrWrongType):
		typ, _ := rdb.Type(ctx, name).Result()
		return fmt.Errorf("%s holds a Redis %s, not a bucket: try \"redisson inspect %s\"", name, typ, name)
	case errors.Is(err, codec.ErrDecode):
		return fmt.Errorf("%s: %w\n(try another --codec, or --raw)", name, err)
	}
	return err
}

// Printable replaces what encoding/json cannot print: not-finite floats
// become the strings Jackson writes for them.
func Printable(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return notFinite(x)
		}
	case float32:
		if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
			return notFinite(f)
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Printable(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Printable(e)
		}
		return out
	case []byte:
		return x // base64, as Jackson prints a byte[]
	}
	return v
}

func notFinite(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case f > 0:
		return "Infinity"
	}
	return "-Infinity"
}
