package eviction

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runs records when a task ran (seconds since the start of the bubble) and
// answers each run from a script of results.
type runs struct {
	mu      sync.Mutex
	start   time.Time
	results []int
	at      []int
	latches []time.Duration
}

func (r *runs) task(ctx context.Context, limit int, latch time.Duration) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.at = append(r.at, int(time.Since(r.start)/time.Second))
	r.latches = append(r.latches, latch)
	if len(r.results) == 0 {
		return 0, nil
	}
	n := r.results[0]
	r.results = r.results[1:]
	if n == -2 {
		return 0, errors.New("refused")
	}
	return n, nil
}

func TestPacing(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		results []int // -1: latch taken; -2: error
		at      []int // when the runs happened, in seconds
	}{
		{"nothing to remove grows by half from the third run",
			Config{}, []int{0, 0, 0, 0, 0},
			[]int{5, 10, 15, 22, 32}},
		{"shrinking counts grow the delay",
			Config{}, []int{9, 5, 2, 2},
			[]int{5, 10, 15, 22}},
		{"full runs drop to a quarter, not below the minimum",
			Config{MinDelay: 2 * time.Second, KeysLimit: 10}, []int{0, 0, 0, 10, 10, 10, 10},
			[]int{2, 4, 6, 9, 12, 15, 17}},
		{"a taken latch and a failed run leave the pacing alone",
			Config{}, []int{0, -1, 0, -2, 0, 0},
			[]int{5, 10, 15, 20, 25, 32}},
		{"one second stays one second, as Redisson's int arithmetic has it",
			Config{MinDelay: time.Second}, []int{0, 0, 0, 0},
			[]int{1, 2, 3, 4}},
		{"the maximum caps the growth",
			Config{MaxDelay: 6 * time.Second}, []int{0, 0, 0, 0, 0},
			[]int{5, 10, 15, 21, 27}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := &runs{start: time.Now(), results: tt.results}
				s := New(tt.cfg)
				s.Schedule("m", r.task)
				time.Sleep(time.Duration(tt.at[len(tt.at)-1])*time.Second + time.Millisecond)
				synctest.Wait()
				s.Close()
				r.mu.Lock()
				defer r.mu.Unlock()
				assert.Equal(t, tt.at, r.at)
			})
		})
	}
}

func TestLatchIsTheDelayCappedAt30s(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &runs{start: time.Now()}
		s := New(Config{MinDelay: 40 * time.Second})
		s.Schedule("m", r.task)
		time.Sleep(41 * time.Second)
		synctest.Wait()
		s.Close()
		require.Len(t, r.latches, 1)
		assert.Equal(t, 30*time.Second, r.latches[0])
	})
}

func TestOneTaskPerName(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		first, second := &runs{start: time.Now()}, &runs{start: time.Now()}
		s := New(Config{})
		s.Schedule("m", first.task)
		s.Schedule("m", second.task)
		assert.True(t, s.Scheduled("m"))
		time.Sleep(6 * time.Second)
		synctest.Wait()
		s.Remove("m")
		assert.False(t, s.Scheduled("m"))
		time.Sleep(time.Minute)
		synctest.Wait()
		s.Close()
		assert.Equal(t, []int{5}, first.at)
		assert.Empty(t, second.at)
	})
}

func TestLifetimeAndCloseStopTasks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		r := &runs{start: time.Now()}
		s := New(Config{Lifetime: ctx})
		s.Schedule("m", r.task)
		cancel()
		time.Sleep(time.Minute)
		synctest.Wait()
		assert.Empty(t, r.at)
		s.Close()
		s.Schedule("n", r.task)
		assert.False(t, s.Scheduled("n"), "a closed scheduler starts nothing")
	})
}
