package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
	"github.com/goredisson/redisson/rlock"
)

// TestMutualTLSSideConnections: on a TLS-only redis-server that requires
// client certificates (tls-auth-clients yes, no plain port), a Client over a
// go-redis client with the certificate works on every connection it opens
// itself, not only on go-redis' pool: the pub/sub hub's (a topic's message
// and a lock waiter's wake-up arrive) and a blocking queue's (a Take waits
// in BLPOP and gets the element). Both show in CLIENT LIST while in use, and
// a connection without the certificate is refused, so each of them did the
// TLS handshake with it.
func TestMutualTLSSideConnections(t *testing.T) {
	files := redistest.TLSFiles(t)
	srv := redistest.StartServer(t, redistest.Options{TLS: files})
	ctx := t.Context()
	raw := redistest.Client(t, srv) // TLS with the client certificate
	caOnly, err := files.CAConfig()
	require.NoError(t, err)
	noCert := redistest.Client(t, srv, func(o *redis.Options) { o.TLSConfig, o.MaxRetries = caOnly, -1 })
	require.Error(t, noCert.Ping(ctx).Err(), "the server must refuse a connection without a client certificate")

	c := redissontest.NewClient(t, redistest.Client(t, srv))
	holder := redissontest.NewClient(t, redistest.Client(t, srv))

	// The hub: a topic subscription and a lock waiter share its connection.
	topic := redisson.NewTopic[string](c, "tls:topic", codec.String())
	sub, err := topic.Subscribe(ctx)
	require.NoError(t, err)
	defer sub.Close()
	n, err := topic.Publish(ctx, "hello")
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	select {
	case m := <-sub.Messages():
		require.Equal(t, "hello", m.Value)
	case <-time.After(30 * time.Second):
		t.Fatal("the topic's message did not arrive over the hub's TLS connection")
	}
	h, err := holder.Lock("tls:lock").Lock(ctx)
	require.NoError(t, err)
	acquired := make(chan error, 1)
	go func() {
		wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		wh, err := c.Lock("tls:lock").Lock(wctx, rlock.WithLease(time.Minute))
		if err == nil {
			err = wh.Unlock(wctx)
		}
		acquired <- err
	}()
	redistest.Eventually(t, 30*time.Second, "the waiter subscribed to the lock's channel", func() bool {
		return redistest.NumSub(t, raw, "redisson_lock__channel:{tls:lock}") == 1
	})
	hub := clientsWhere(t, raw, func(f map[string]string) bool { return strings.Contains(f["flags"], "P") })
	require.Len(t, hub, 1, "one pub/sub connection (the hub's) for the topic and the waiter")
	require.Equal(t, "2", hub[0]["sub"], "the hub's connection carries the topic's and the lock's channels")
	require.NoError(t, h.Unlock(ctx))
	select {
	case err := <-acquired:
		require.NoError(t, err)
	case <-time.After(60 * time.Second):
		t.Fatal("the lock waiter was not woken over the hub's TLS connection")
	}

	// A blocking queue's own connection.
	q := redisson.NewBlockingQueue[string](c, "tls:queue", codec.String())
	took := make(chan string, 1)
	go func() {
		tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		v, err := q.Take(tctx)
		if err != nil {
			v = "error: " + err.Error()
		}
		took <- v
	}()
	redistest.Eventually(t, 30*time.Second, "Take blocked in BLPOP", func() bool {
		return len(clientsWhere(t, raw, func(f map[string]string) bool { return f["cmd"] == "blpop" })) == 1
	})
	require.NoError(t, redisson.NewQueue[string](holder, "tls:queue", codec.String()).Offer(ctx, "job"))
	select {
	case v := <-took:
		require.Equal(t, "job", v)
	case <-time.After(60 * time.Second):
		t.Fatal("Take did not return the element over its TLS connection")
	}
}

// clientsWhere returns the CLIENT LIST entries (their fields) that match.
func clientsWhere(t *testing.T, rdb *redis.Client, match func(map[string]string) bool) []map[string]string {
	t.Helper()
	list, err := rdb.ClientList(t.Context()).Result()
	require.NoError(t, err)
	var out []map[string]string
	for _, f := range parseClientList(list) {
		if match(f) {
			out = append(out, f)
		}
	}
	return out
}

// parseClientList splits CLIENT LIST's reply into each client's fields.
func parseClientList(list string) []map[string]string {
	var out []map[string]string
	for line := range strings.Lines(list) {
		f := map[string]string{}
		for _, kv := range strings.Fields(line) {
			k, v, _ := strings.Cut(kv, "=")
			f[k] = v
		}
		out = append(out, f)
	}
	return out
}
