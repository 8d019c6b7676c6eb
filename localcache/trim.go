package localcache

import (
	"context"
	"strconv"
	"time"
)

// Redisson's eviction task pacing (Config's minCleanUpDelay,
// maxCleanUpDelay, cleanUpKeysAmount), which it uses for the updates log
// of a ReconnectLoad map too.
const (
	trimMinDelay = 5 * time.Second
	trimMaxDelay = 30 * time.Minute
	trimKeys     = 100
)

// trimmer paces the updates log's trimming as Redisson's EvictionTask
// does: from 5 s, slower (×1.5, up to 30 min) while the removals shrink or
// stay at zero, faster (÷4) while each removes the batch limit or more.
type trimmer struct {
	on      bool
	delay   time.Duration
	history []int64
	timer   *time.Timer
}

func newTrimmer(on bool) *trimmer {
	t := &trimmer{on: on, delay: trimMinDelay}
	if on {
		t.timer = time.NewTimer(t.delay)
	}
	return t
}

// C fires when the next trim is due; never without ReconnectLoad.
func (t *trimmer) C() <-chan time.Time {
	if !t.on {
		return nil
	}
	return t.timer.C
}

// next takes the count the trim removed (-1: it failed) and sets the
// timer for the next.
func (t *trimmer) next(removed int64) {
	if removed >= 0 {
		if len(t.history) == 2 {
			a, b := t.history[0], t.history[1]
			if a > b && b > removed {
				t.delay = min(trimMaxDelay, t.delay*3/2)
			}
			if a == b && b == removed {
				if removed >= trimKeys {
					t.delay = max(trimMinDelay, t.delay/4)
				}
				if removed == 0 {
					t.delay = min(trimMaxDelay, t.delay*3/2)
				}
			}
			t.history = t.history[1:]
		}
		t.history = append(t.history, removed)
	}
	t.timer.Reset(t.delay)
}

// trimLog is Redisson's ScoredSetEvictionTask for the updates log:
// ZREMRANGEBYSCORE of the entries older than the log's window and a
// minute.
func (m *LocalCachedMap[K, V]) trimLog(ctx context.Context) int64 {
	upTo := time.Now().Add(-logWindow - time.Minute).UnixMilli()
	n, err := m.rt.Redis().ZRemRangeByScore(ctx, m.updatesLog(), "0", strconv.FormatInt(upTo, 10)).Result()
	if err != nil {
		return -1
	}
	return n
}
