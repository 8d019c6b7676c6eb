package redistest

import (
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestTLSServer: a server started with Options.TLS answers a client with
// the client certificate, and refuses one without it and a plain one.
func TestTLSServer(t *testing.T) {
	files := TLSFiles(t)
	s := StartServer(t, Options{TLS: files})
	ctx := t.Context()
	if err := Client(t, s).Ping(ctx).Err(); err != nil {
		t.Fatalf("with the client certificate: %v", err)
	}
	caOnly, err := files.CAConfig()
	if err != nil {
		t.Fatal(err)
	}
	for name, opt := range map[string]func(*redis.Options){
		"no client certificate": func(o *redis.Options) { o.TLSConfig = caOnly },
		"plain":                 func(o *redis.Options) { o.TLSConfig = nil },
	} {
		c := Client(t, s, opt, func(o *redis.Options) { o.MaxRetries = -1 })
		if err := c.Ping(ctx).Err(); err == nil {
			t.Errorf("%s: PING answered", name)
		}
	}
}
