package objects

import "github.com/goredisson/redisson/internal/engine"

// NewMultiLockGroup makes a *multilock.Group of the values of group; set by
// package multilock.
var NewMultiLockGroup func(e *engine.Engine, group string, values []string) any
