package redistest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// MaxMemoryArgs are the redis-server arguments of a server whose writes
// fail with OOM once Fill has filled it: 2 MB, no eviction.
var MaxMemoryArgs = []string{"--maxmemory", "2mb", "--maxmemory-policy", "noeviction"}

// StartFullable starts a redis-server with MaxMemoryArgs for the test.
func StartFullable(t testing.TB) *Server {
	t.Helper()
	return StartServer(t, Options{Args: MaxMemoryArgs})
}

// fillPrefix names the keys Fill writes.
const fillPrefix = "redistest:fill:"

// Fill writes filler keys through rdb until Redis refuses a small write
// with OOM (the server must have a maxmemory without eviction), so that
// every command that may grow memory is refused from then on. It returns
// the function that deletes the filler again (DEL is served under OOM).
func Fill(t testing.TB, rdb *redis.Client) (free func()) {
	t.Helper()
	ctx := context.Background()
	big := strings.Repeat("x", 64<<10)
	small := strings.Repeat("y", 256)
	oom := func(err error) bool { return err != nil && strings.HasPrefix(err.Error(), "OOM ") }
	for i := 0; ; i++ {
		err := rdb.Set(ctx, fmt.Sprintf("%s%d", fillPrefix, i), big, 0).Err()
		if oom(err) {
			break
		}
		if err != nil {
			t.Fatalf("redistest.Fill: %v", err)
		}
		if i > 10000 {
			t.Fatalf("redistest.Fill: no OOM after %d writes; is maxmemory set?", i)
		}
	}
	// A large write is refused while a small one may still fit: top up
	// until a write of a few bytes is refused too.
	for i := 0; ; i++ {
		if oom(rdb.Set(ctx, fillPrefix+"probe", "1", 0).Err()) {
			break
		}
		err := rdb.Append(ctx, fillPrefix+"tail", small).Err()
		if err != nil && !oom(err) {
			t.Fatalf("redistest.Fill: %v", err)
		}
		if i > 100000 {
			t.Fatalf("redistest.Fill: small writes still accepted after %d top-ups", i)
		}
	}
	return func() {
		t.Helper()
		var cursor uint64
		for {
			keys, next, err := rdb.Scan(ctx, cursor, fillPrefix+"*", 1000).Result()
			if err != nil {
				t.Fatalf("redistest.Fill: freeing: %v", err)
			}
			if len(keys) > 0 {
				if err := rdb.Del(ctx, keys...).Err(); err != nil {
					t.Fatalf("redistest.Fill: freeing: %v", err)
				}
			}
			if cursor = next; cursor == 0 {
				return
			}
		}
	}
}
