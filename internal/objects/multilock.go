package objects

import (
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/engine"
)

// NewMultiLockGroup makes a *multilock.Group of the values of group; set by
// package multilock.
var NewMultiLockGroup func(e *engine.Engine, group string, values []string) any

// runtimeOf holds, per lock kind, how to find the runtime of its public
// handle; each kind adds its own in its init (RegisterRuntimeOf), and
// nothing adds to it afterwards.
var runtimeOf []func(l any) *core.Runtime

// RegisterRuntimeOf adds a lock kind's way to find its handle's runtime;
// called from the kinds' init only.
func RegisterRuntimeOf(f func(l any) *core.Runtime) { runtimeOf = append(runtimeOf, f) }

// RuntimeOf returns the runtime of a lock kind's public handle, nil for a
// lock of another package (a multi-lock member implemented elsewhere): the
// multi-lock reports its events to its first member's client.
func RuntimeOf(l any) *core.Runtime {
	for _, f := range runtimeOf {
		if rt := f(l); rt != nil {
			return rt
		}
	}
	return nil
}
