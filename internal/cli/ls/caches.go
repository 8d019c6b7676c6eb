package ls

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/cli/objinfo"
)

// readCacheStats reads, in one pipeline, the figures of the objects of
// out that have some, and sets their state from them.
func readCacheStats(ctx context.Context, rdb redis.UniversalClient, out []Object, looks []look, counts map[string]objinfo.ChannelSub) error {
	pipe := rdb.Pipeline()
	now := time.Now()
	finish := map[int]func(func(string) int64) *objinfo.CacheStats{}
	for i := range out {
		if objinfo.HasCacheStats(out[i].Kind) {
			finish[i] = objinfo.QueueCacheStats(ctx, pipe, out[i].Kind, out[i].Name, looks[i].d.Cache, now)
		}
	}
	if len(finish) == 0 {
		return nil
	}
	if err := objinfo.ExecPipe(ctx, pipe); err != nil {
		return err
	}
	subs := func(ch string) int64 { return objinfo.ChannelWaiters([]objinfo.ChannelSub{counts[ch]}, ch) }
	for i, f := range finish {
		out[i].Cache = f(subs)
		out[i].State = lsState(&out[i], looks[i].fieldsMap)
	}
	return nil
}
