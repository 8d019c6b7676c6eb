package main

import (
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/redistest"
)

// stdout serializes the tests' capture of os.Stdout, where out prints.
var stdout sync.Mutex

// capture runs f and returns what it printed.
func capture(t *testing.T, f func()) string {
	t.Helper()
	stdout.Lock()
	defer stdout.Unlock()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	saved := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		done <- b
	}()
	f()
	os.Stdout = saved
	require.NoError(t, w.Close())
	return string(<-done)
}

// lines returns the printed lines that start with prefix.
func lines(s, prefix string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// TestObjectModes runs the Bloom filter and adder modes Go against Go,
// with Contend's output lines: what a hand-run check against Java compares.
func TestObjectModes(t *testing.T) {
	srv := redistest.StartServer(t)
	rdb := redistest.Client(t, srv)
	newClient := func() *redisson.Client {
		c, err := redisson.New(redistest.Client(t, srv))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	c1, c2 := newClient(), newClient()
	ctx := context.Background()
	tm := timing{alive: time.Minute, wait: 30 * time.Second}
	mode := func(c *redisson.Client, ck *checker, mode, name string, a ...string) string {
		return capture(t, func() {
			known, err := runObjects(ctx, c, ck, tm, mode, name, a)
			require.True(t, known, mode)
			require.NoError(t, err, mode)
		})
	}
	ck := &checker{}
	got := mode(c1, ck, "bloomadd", "bf", "100", "100", "0.01")
	require.Equal(t, []string{"new 100"}, lines(got, "new "), got)
	require.Equal(t, []string{"config size 958 hashes 7 expected 100 fpp 0.01"}, lines(got, "config "), got)
	got = mode(c2, ck, "bloomcheck", "bf", "100", "e")
	require.Contains(t, got, "checked 100 present 100 ")
	require.Contains(t, got, "config size 958 hashes 7 expected 100 fpp 0.01 count ")

	// An instance that leaves at once (-alive 0) takes its count along.
	tm.alive = 0
	got = mode(c1, ck, "dadderinc", "da", "4", "0.25")
	require.Len(t, lines(got, "incremented 4 "), 1, got)
	require.Len(t, lines(got, "leaving "), 1, got)
	require.Contains(t, mode(c2, ck, "daddersum", "da"), "sum 0.0 ")

	// Two live instances, on two clients, summed from a third.
	a1, a2 := c1.LongAdder("la"), c2.LongAdder("la")
	defer a1.Close()
	defer a2.Close()
	a1.Add(3)
	a2.Add(7)
	require.Contains(t, mode(newClient(), ck, "addersum", "la"), "sum 10 ")
	require.False(t, ck.failed)
	require.Empty(t, rdb.Keys(ctx, "{la}*").Val(), "no request key left")
}
