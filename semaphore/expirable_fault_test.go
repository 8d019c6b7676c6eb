package semaphore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/redistest"
)

// TestExpirableLostReplyUnknown: when neither the acquire nor the question
// whether it ran gets through, the error says the outcome is unknown.
func TestExpirableLostReplyUnknown(t *testing.T) {
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c, p := proxied(t, srv, "cut")
	s := c.PermitExpirableSemaphore("cut")

	p.Stall()
	sent := p.Stats().FromClient
	got := make(chan error, 1)
	go func() {
		_, _, err := s.TryAcquire(context.Background())
		got <- err
	}()
	redistest.Eventually(t, 5*time.Second, "the acquire left the client", func() bool { return p.Stats().FromClient > sent })
	p.Cut()
	select {
	case err := <-got:
		require.ErrorContains(t, err, "no reply to the acquire of 1 permits")
	case <-time.After(15 * time.Second):
		t.Fatal("the acquire did not return")
	}
	require.Equal(t, "1", rawValue(t, raw, "cut"), "the proxy dropped it: nothing was taken")
}
