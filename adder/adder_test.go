package adder_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/adder"
	"github.com/goredisson/redisson/internal/redistest"
)

func newClient(t *testing.T, srv *redistest.Server) *redisson.Client {
	t.Helper()
	c, err := redisson.New(redistest.Client(t, srv), redisson.WithRegistration(redisson.RegistrationOptions{Disabled: true}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestLongAdderTwoClients: three instances on two clients (two sharing
// one client's subscription) sum and reset together; a closed instance no
// longer counts, and the request keys are gone after each call.
func TestLongAdderTwoClients(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	raw := redistest.Client(t, srv)
	c1, c2 := newClient(t, srv), newClient(t, srv)
	a, b, c := c1.LongAdder("hits"), c1.LongAdder("hits"), c2.LongAdder("hits")
	defer a.Close()
	defer c.Close()
	a.Add(5)
	a.Increment()
	b.Add(100)
	c.Add(10)
	c.Decrement()
	for _, tc := range []struct {
		name string
		sum  func() (int64, error)
		want int64
	}{
		{"from c1", func() (int64, error) { return a.Sum(ctx) }, 115},
		{"from c2", func() (int64, error) { return c.Sum(ctx) }, 115},
	} {
		n, err := tc.sum()
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, n, tc.name)
	}
	require.NoError(t, b.Close())
	n, err := c.Sum(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(15), n, "b closed")
	require.NoError(t, c.Reset(ctx))
	n, err = a.Sum(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Empty(t, raw.Keys(ctx, "*").Val(), "counters and semaphores deleted")
}

// TestDoubleAdderTwoClients: doubles sum across clients.
func TestDoubleAdderTwoClients(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	c1, c2 := newClient(t, srv), newClient(t, srv)
	a, b := c1.DoubleAdder("amount"), c2.DoubleAdder("amount")
	defer a.Close()
	defer b.Close()
	a.Add(0.25)
	a.Increment()
	b.Add(1.5)
	f, err := b.Sum(ctx)
	require.NoError(t, err)
	require.Equal(t, 2.75, f)
	require.NoError(t, a.Reset(ctx))
	f, err = a.Sum(ctx)
	require.NoError(t, err)
	require.Zero(t, f)
}

func TestAdderErrors(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t)
	c := newClient(t, srv)
	a := c.LongAdder("x")
	defer a.Close()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		name string
		err  error
		is   error
	}{
		{"empty name", second(c.LongAdder("").Sum(ctx)), redisson.ErrInvalidName},
		{"nil handle", second((*adder.LongAdder)(nil).Sum(ctx)), redisson.ErrInvalidArgument},
		{"nil double handle", (*adder.DoubleAdder)(nil).Reset(ctx), redisson.ErrInvalidArgument},
		{"cancelled", second(a.Sum(cancelled)), context.Canceled},
	} {
		require.ErrorIs(t, tc.err, tc.is, tc.name)
	}
	require.NoError(t, c.Close())
	_, err := a.Sum(ctx)
	require.ErrorIs(t, err, redisson.ErrClosed)
	require.EqualError(t, err, fmt.Sprintf(`long adder "x": sum: %v`, redisson.ErrClosed))
}

func second[T any](_ T, err error) error { return err }
