package localcache

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/goredisson/redisson/semaphore"
)

// Redisson's clearLocalCache: how long the semaphore lives and how long
// the caller waits for the receivers' permits.
const (
	clearSemaphoreTTL = 60 * time.Second
	clearWait         = 40 * time.Second
)

// clearOthers is the wire side of Redisson's clearLocalCache (see
// ClearLocalCache); nothing with SyncNone, where Redisson has no listener.
func (m *LocalCachedMap[K, V]) clearOthers(ctx context.Context, op string) error {
	if m.opts.Sync == SyncNone {
		return nil
	}
	var request [idLen]byte
	_, _ = rand.Read(request[:])
	sem := semaphore.New(m.src, m.name+":clear:"+hex.EncodeToString(request[:]))
	if _, err := sem.TrySetPermits(ctx, 0, semaphore.WithTTL(clearSemaphoreTTL)); err != nil {
		return m.named(op, err)
	}
	cmd, err := m.send(ctx, false, m.rt.PublishCommand(), m.topic(), encodeClear(m.id, request, true))
	if err != nil {
		m.dropSemaphore(ctx, sem)
		return m.fail(ctx, op, err)
	}
	// PUBLISH counts this instance too.
	if receivers, _ := cmd.Val().(int64); receivers > 1 {
		if _, err := sem.TryAcquire(ctx, int(receivers-1), semaphore.WithWait(clearWait)); err != nil {
			m.dropSemaphore(ctx, sem)
			return m.named(op, err)
		}
	}
	if _, err := sem.Delete(ctx); err != nil {
		return m.named(op, err)
	}
	return nil
}

// dropSemaphore deletes a failed clear's semaphore, best effort and even
// when ctx is done: its TTL would end it, but a failed call should leave
// nothing behind.
func (m *LocalCachedMap[K, V]) dropSemaphore(ctx context.Context, sem *semaphore.Semaphore) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.rt.Timeout())
	defer cancel()
	_, _ = sem.Delete(ctx)
}
