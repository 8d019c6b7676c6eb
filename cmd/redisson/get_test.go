package main

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/get"
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/source"
	"github.com/goredisson/redisson/value"
)

// sourceOn returns the source of a Client on rdb, closed when the test
// ends, for writing values as a Go service would; its registration is off,
// so that it leaves no key of its own.
func sourceOn(t *testing.T, rdb redis.UniversalClient) *source.Source {
	t.Helper()
	c, err := redisson.New(rdb, redisson.WithRegistration(redisson.RegistrationOptions{Disabled: true}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c.Source()
}

type getPerson struct {
	Name string `json:"name"`
	ID   *int64 `json:"id"`
}

// TestGetValue: every --codec prints what a Java service wrote with that
// codec; --raw prints the bytes.
func TestGetValue(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	src := sourceOn(t, rdb)
	types := codec.NewTypes().MustRegister("com.example.Person", getPerson{})
	id := int64(7)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(value.NewBucket[getPerson](src, "json", codec.JsonJackson(types)).Set(ctx, getPerson{Name: "Ann", ID: &id}))
	must(value.NewBucket[any](src, "msgpack", codec.MsgPackJackson(nil)).Set(ctx, []any{int64(1), "two", math.NaN()}))
	must(value.NewBucket[string](src, "string", codec.String()).Set(ctx, "héllo"))
	must(value.NewAtomicLong(src, "counter").Set(ctx, -42))
	must(value.NewBucket[[]byte](src, "bytes", codec.ByteArray()).Set(ctx, []byte{0, 1, 2}))
	must(rdb.HSet(ctx, "hash", "f", "v").Err())

	for _, tc := range []struct {
		name, key, codec string
		raw              bool
		want             string
		err              error
	}{
		{"json object keeps its class", "json", "json", false, "{\n  \"@class\": \"com.example.Person\",\n  \"id\": 7,\n  \"name\": \"Ann\"\n}\n", nil},
		{"msgpack list", "msgpack", "msgpack", false, "[\n  1,\n  \"two\",\n  \"NaN\"\n]\n", nil},
		{"string", "string", "string", false, "\"héllo\"\n", nil},
		{"atomic long with long", "counter", "long", false, "-42\n", nil},
		{"atomic long with json", "counter", "json", false, "-42\n", nil},
		{"bytes", "bytes", "bytes", false, "\"AAEC\"\n", nil},
		{"raw", "json", "json", true, `{"@class":"com.example.Person","id":["java.lang.Long",7],"name":"Ann"}`, nil},
		{"missing", "nothing", "json", false, "", get.ErrNoValue},
		{"missing raw", "nothing", "json", true, "", get.ErrNoValue},
		{"wrong codec", "string", "long", false, "", codec.ErrDecode},
		{"another type", "hash", "json", false, "", core.ErrWrongType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := get.Value(ctx, &out, rdb, tc.key, get.Codecs[tc.codec](), tc.raw)
			switch {
			case tc.err == core.ErrWrongType:
				if err == nil || !strings.Contains(err.Error(), "holds a Redis hash, not a bucket") {
					t.Fatalf("got %v", err)
				}
			case tc.err != nil:
				if !errors.Is(err, tc.err) {
					t.Fatalf("got %v, want %v", err, tc.err)
				}
			case err != nil:
				t.Fatal(err)
			case out.String() != tc.want:
				t.Fatalf("got %q, want %q", out.String(), tc.want)
			}
		})
	}
}

// TestGetCommand runs the binary: output, exit codes, usage errors.
func TestGetCommand(t *testing.T) {
	url, rdb := server(t)
	ctx := context.Background()
	if err := value.NewBucket[any](sourceOn(t, rdb), "cfg", codec.JsonJackson(nil)).Set(ctx, map[string]any{"on": true}); err != nil {
		t.Fatal(err)
	}
	r := cli(t, 30*time.Second, "get", "--redis", url, "cfg")
	if r.code != 0 || r.stdout != "{\n  \"on\": true\n}\n" {
		t.Fatalf("get cfg: %v", r)
	}
	r = cli(t, 30*time.Second, "get", "--redis", url, "missing")
	if r.code != cliflag.ExitError || !strings.Contains(r.stderr, "missing: no value") {
		t.Fatalf("get missing: %v", r)
	}
	r = cli(t, 30*time.Second, "get", "--redis", url, "--codec", "kryo", "cfg")
	if r.code != cliflag.ExitUsage || !strings.Contains(r.stderr, `unknown --codec "kryo"`) {
		t.Fatalf("get --codec kryo: %v", r)
	}
	r = cli(t, 30*time.Second, "get", "--redis", url)
	if r.code != cliflag.ExitUsage {
		t.Fatalf("get without NAME: %v", r)
	}
}
