package core_test

import (
	"context"
	"testing"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/redistest"
)

// BenchmarkScriptRun is one (*core.Script).Run of a trivial script: the
// runner's overhead on top of go-redis' EVALSHA (compare BenchmarkRawEvalSha).
func BenchmarkScriptRun(b *testing.B) {
	srv := redistest.StartServer(b)
	rdb := redistest.Client(b, srv)
	ctx := context.Background()
	s := core.NewScript("bench.one", "return 1")
	if err := s.Load(ctx, rdb); err != nil {
		b.Fatal(err)
	}
	keys := []string{"bench"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Run(ctx, rdb, keys); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawEvalSha is the same script through go-redis' EvalSha directly.
func BenchmarkRawEvalSha(b *testing.B) {
	srv := redistest.StartServer(b)
	rdb := redistest.Client(b, srv)
	ctx := context.Background()
	s := core.NewScript("bench.one", "return 1")
	if err := s.Load(ctx, rdb); err != nil {
		b.Fatal(err)
	}
	sha, keys := s.Hash(), []string{"bench"}
	b.ReportAllocs()
	for b.Loop() {
		if err := rdb.EvalSha(ctx, sha, keys).Err(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScriptRunNil is (*core.Script).Run of a script replying nil, as
// rlock.acquire does on success: go-redis turns the nil reply into redis.Nil
// and runs its retry classification and NOSCRIPT check on that error.
func BenchmarkScriptRunNil(b *testing.B) {
	srv := redistest.StartServer(b)
	rdb := redistest.Client(b, srv)
	ctx := context.Background()
	s := core.NewScript("bench.nil", "return nil")
	if err := s.Load(ctx, rdb); err != nil {
		b.Fatal(err)
	}
	keys := []string{"bench"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Run(ctx, rdb, keys); err != nil {
			b.Fatal(err)
		}
	}
}
