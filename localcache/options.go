package localcache

import (
	"fmt"
	"time"

	"github.com/goredisson/redisson/codec"
	"github.com/goredisson/redisson/internal/core"
)

// Eviction is how the near cache makes room once it holds CacheSize
// entries (Redisson's EvictionPolicy).
type Eviction uint8

const (
	// EvictionNone never evicts: entries leave by TTL, max idle or a
	// message only, and CacheSize is not a limit (Redisson's NONE, the
	// default; it ignores the size too).
	EvictionNone Eviction = iota
	// EvictionLRU drops the least recently read entry (Redisson's LRU).
	EvictionLRU
	// EvictionLFU drops the least read entry, the oldest of equals, and
	// lowers every other entry's count by its (Redisson's LFU).
	EvictionLFU
)

// SyncStrategy is what a write tells the other instances (Redisson's
// SyncStrategy).
type SyncStrategy uint8

const (
	// SyncInvalidate publishes the written keys' hashes; other instances
	// drop them and read Redis next time (Redisson's INVALIDATE, the
	// default).
	SyncInvalidate SyncStrategy = iota
	// SyncUpdate publishes the written entries; other instances store
	// them (Redisson's UPDATE).
	SyncUpdate
	// SyncNone publishes nothing and listens to nothing: each instance's
	// near cache keeps what it read until TTL, max idle or eviction
	// (Redisson's NONE).
	SyncNone
)

// ReconnectionStrategy is what the near cache does when its subscription
// to the topic was lost and made again (Redisson's ReconnectionStrategy).
type ReconnectionStrategy uint8

const (
	// ReconnectNone is Redisson's default, NONE: Redisson keeps its near
	// cache then, which may be stale after the messages it missed. Go
	// clears it instead (as ReconnectClear): a gap never leaves a stale
	// value.
	ReconnectNone ReconnectionStrategy = iota
	// ReconnectClear drops the whole near cache (Redisson's CLEAR).
	ReconnectClear
	// ReconnectLoad keeps the near cache and drops only the keys written
	// while the subscription was down, read from the updates log
	// redisson__cache_updates_log:{NAME} that writes with this strategy
	// keep (Redisson's LOAD). Past the log's 10 minutes, or when the map
	// is gone or the log cannot be read, it clears.
	ReconnectLoad
)

// StoreMode is where the map's data lives (Redisson's StoreMode).
type StoreMode uint8

const (
	// StoreLocalCacheRedis keeps the map in Redis, the near cache in front
	// of it (Redisson's LOCALCACHE_REDIS, the default).
	StoreLocalCacheRedis StoreMode = iota
	// StoreLocalCache keeps the map in each instance's near cache only;
	// writes are published to the others, Redis holds nothing (Redisson's
	// LOCALCACHE).
	StoreLocalCache
)

// Options configures a LocalCachedMap; the zero value is Redisson's
// LocalCachedMapOptions defaults.
type Options struct {
	// CacheSize caps the near cache's entries for EvictionLRU and
	// EvictionLFU; 0 is no cap, -1 caches nothing (Redisson's cacheSize).
	CacheSize int
	// TTL drops an entry this long after it was cached; 0 never.
	TTL time.Duration
	// MaxIdle drops an entry not read for this long; 0 never.
	MaxIdle time.Duration
	// Eviction is how a full near cache makes room.
	Eviction Eviction
	// Sync is what a write tells the other instances.
	Sync SyncStrategy
	// Reconnection is what a lost and restored subscription does.
	Reconnection ReconnectionStrategy
	// StoreMode is where the data lives.
	StoreMode StoreMode
	// KeyCodec encodes the keys with a codec of their own instead of the
	// map's, as a Java CompositeCodec does. Key hashes are of these bytes.
	KeyCodec codec.Codec
}

// check refuses options Redisson refuses, or that mean nothing.
func (o Options) check() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{core.ErrInvalidArgument}, a...)...)
	}
	switch {
	case o.CacheSize < -1:
		return bad("the cache size must be -1 (no near cache), 0 (no cap) or more, got %d", o.CacheSize)
	case o.TTL < 0 || o.MaxIdle < 0:
		return bad("TTL and max idle must not be negative, got %v and %v", o.TTL, o.MaxIdle)
	case o.Eviction > EvictionLFU:
		return bad("unknown eviction policy %d", o.Eviction)
	case o.Sync > SyncNone:
		return bad("unknown sync strategy %d", o.Sync)
	case o.Reconnection > ReconnectLoad:
		return bad("unknown reconnection strategy %d", o.Reconnection)
	case o.StoreMode > StoreLocalCache:
		return bad("unknown store mode %d", o.StoreMode)
	}
	return nil
}

// onChange is Redisson's invalidateEntryOnChange, ARGV of every write
// script: 0 publishes nothing, 1 publishes, 2 also logs the write for
// ReconnectLoad.
func (o Options) onChange() int {
	switch {
	case o.Reconnection == ReconnectLoad:
		return 2
	case o.Sync != SyncNone:
		return 1
	}
	return 0
}
