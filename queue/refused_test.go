package queue_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/redissontest"
)

// An element popped for nobody (here one the codec cannot read) whose
// put-back Redis refuses for want of memory is not lost: the put-back is
// sent again until Redis accepts it, and the element is back where it was
// once memory is freed (it was lost, in the log only, before).
func TestPutBackRefusedByOOMIsRetried(t *testing.T) {
	srv := redistest.StartFullable(t)
	c := redissontest.ClientAt(t, srv.Addr())
	raw := redistest.Client(t, srv)
	ctx := t.Context()
	require.NoError(t, raw.RPush(ctx, "n", "x", "7", "y").Err())
	d := redisson.NewBlockingDeque[int64](c, "n", codec.Long())
	pops := []struct {
		name string
		pop  func() error
	}{
		{"poll", func() error { _, _, err := d.PollFirst(ctx, 0); return err }},
		{"take", func() error { _, err := d.TakeFirst(ctx); return err }},
	}
	for _, p := range pops {
		free := redistest.Fill(t, raw)
		require.ErrorIs(t, p.pop(), codec.ErrDecode, p.name)
		require.Equal(t, []string{"7", "y"}, list(t, raw, "n"), "%s: popped, not back yet", p.name)
		free()
		redistest.Eventually(t, within, p.name+": the element is put back", func() bool {
			return slices.Equal(list(t, raw, "n"), []string{"x", "7", "y"})
		})
	}
}
