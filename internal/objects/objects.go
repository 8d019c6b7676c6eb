// Package objects lets the root package make the public object types
// without those packages exporting constructors that take internal types
// (a public rlock.New(*engine.Engine, ...) would put the engine in the
// public API). Each object package sets its constructor here in its init;
// the root package imports the object packages, so they are set before any
// Client exists, and nothing writes them afterwards. Package locks, in the
// same way, lends the lock kinds (through internal/lockkit) what its public
// Hold and Option keep unexported (locks.go).
package objects

import (
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/engine"
)

// NewRLock makes a *rlock.Lock; set by package rlock.
var NewRLock func(e *engine.Engine, name string) any

// NewSemaphore makes a *semaphore.Semaphore; set by package semaphore.
var NewSemaphore func(rt *core.Runtime, name string) any

// NewCountDownLatch makes a *latch.Latch; set by package latch.
var NewCountDownLatch func(rt *core.Runtime, name string) any

// NewFairLock makes a *fairlock.Lock; set by package fairlock.
var NewFairLock func(e *engine.Engine, name string) any

// NewPermitExpirableSemaphore makes a *semaphore.ExpirableSemaphore; set by
// package semaphore.
var NewPermitExpirableSemaphore func(rt *core.Runtime, name string) any

// NewReadWriteLock makes a *rwlock.ReadWriteLock; set by package rwlock.
var NewReadWriteLock func(e *engine.Engine, name string) any

// NewRateLimiter makes a *ratelimit.Limiter; set by package ratelimit.
var NewRateLimiter func(rt *core.Runtime, name string) any
