package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/goredisson/redisson/keys"
	"github.com/redis/go-redis/v9"
)

// The protocol floor: two lock scripts sent through go-redis with no
// library around them (no owner registry, no watchdog, no waiting), to show
// what a lock+unlock pair costs on the wire and in redis-server before any
// library code. One pair runs Redisson's RLock scripts (the keys, fields,
// message and unlock latch a Java Redisson peer expects); the other the
// cheapest single-key lock there is, SET NX PX and a compare-and-delete,
// which is what redsync, redislock and rueidislock send. Neither waits: the
// floor scenario is uncontended only.
const (
	libFloorRedisson = "redisson-scripts"
	libFloorSetNX    = "setnx-scripts"
)

// floorLibs are the floor scenario's pseudo-libraries; the first is the
// group's "ours" in the table's ratio column.
var floorLibs = []string{libFloorRedisson, libFloorSetNX}

// These mirror Redisson 3.52's RLock acquire and unlock (docs/protocol.md §4, §5;
// rlock/scripts.go has ours): hash field <id>:<owner>, PEXPIRE lease, unlock
// message "0", latch SET with PX.
var (
	floorRedissonAcquire = redis.NewScript(`
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
	redis.call('hincrby', KEYS[1], ARGV[2], 1)
	redis.call('pexpire', KEYS[1], ARGV[1])
	return nil
end
return redis.call('pttl', KEYS[1])`)
	floorRedissonUnlock = redis.NewScript(`
local replay = redis.call('get', KEYS[3])
if replay ~= false then
	return tonumber(replay)
end
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
	return nil
end
local left = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if left > 0 then
	redis.call('pexpire', KEYS[1], ARGV[2])
	redis.call('set', KEYS[3], 0, 'px', ARGV[5])
	return 0
end
redis.call('del', KEYS[1])
redis.call(ARGV[4], KEYS[2], ARGV[1])
redis.call('set', KEYS[3], 1, 'px', ARGV[5])
return 1`)
	floorSetNXAcquire = redis.NewScript(`return redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])`)
	floorSetNXRelease = redis.NewScript(`
if redis.call('get', KEYS[1]) == ARGV[1] then
	return redis.call('del', KEYS[1])
end
return 0`)
)

var errFloorHeld = errors.New("floor: the key is held (the floor scenario never contends)")

type floorLocker struct {
	rdb     *redis.Client
	lib     string
	id      string // client id (Redisson's UUID) or token prefix
	counter atomic.Int64
}

func newFloorLocker(lib, addr string, rec *addrRecorder) *floorLocker {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return &floorLocker{rdb: redis.NewClient(goRedisOptions(addr, rec)), lib: lib, id: hex.EncodeToString(b[:])}
}

func (l *floorLocker) Mutex(key string) Mutex {
	return &floorMutex{l: l, key: key, channel: keys.LockChannel(key),
		latch: keys.UnlockLatchPrefix(key) + ":", field: l.id + ":" + strconv.FormatInt(l.counter.Add(1), 10)}
}
func (l *floorLocker) Retries() int64 { return 0 }
func (l *floorLocker) Close() error   { return l.rdb.Close() }

type floorMutex struct {
	l                          *floorLocker
	key, channel, latch, field string
	token                      string
}

const floorLeaseMs, floorLatchMs = 30000, 12000

func (m *floorMutex) Lock(ctx context.Context) error {
	if m.l.lib == libFloorSetNX {
		m.token = m.l.id + strconv.FormatInt(m.l.counter.Add(1), 10)
		err := floorSetNXAcquire.Run(ctx, m.l.rdb, []string{m.key}, m.token, floorLeaseMs).Err()
		if errors.Is(err, redis.Nil) {
			return errFloorHeld
		}
		return err
	}
	err := floorRedissonAcquire.Run(ctx, m.l.rdb, []string{m.key}, floorLeaseMs, m.field).Err()
	switch {
	case errors.Is(err, redis.Nil):
		return nil
	case err != nil:
		return err
	}
	return errFloorHeld
}

func (m *floorMutex) Unlock(ctx context.Context) error {
	if m.l.lib == libFloorSetNX {
		return floorSetNXRelease.Run(ctx, m.l.rdb, []string{m.key}, m.token).Err()
	}
	latch := m.latch + m.l.id + strconv.FormatInt(m.l.counter.Add(1), 16)
	n, err := floorRedissonUnlock.Run(ctx, m.l.rdb, []string{m.key, m.channel, latch},
		"0", floorLeaseMs, m.field, "PUBLISH", floorLatchMs).Int64()
	if err != nil {
		return err
	}
	if n != 1 {
		return fmt.Errorf("floor: unlock returned %d", n)
	}
	return nil
}
