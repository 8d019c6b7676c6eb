package objects

import "github.com/goredisson/redisson/internal/engine"

// NewFencedLock makes a *fencedlock.Lock; set by package fencedlock.
var NewFencedLock func(e *engine.Engine, name string) any
