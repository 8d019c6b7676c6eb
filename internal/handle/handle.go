// Package handle holds the structs behind the public handles that must
// carry the client's machinery without showing it: source.Source (Source
// here), locks.Hold (Hold) and the options locks.Option sets
// (LockOptions).
//
// A public package declares its type as a defined type over one of these
// (type Source handle.Source): it has the same underlying struct, whose
// fields are unexported here, and none of its methods. Users get an opaque
// value; a package of this module converts a pointer to it back
// ((*handle.Source)(src)), which Go allows between types of identical
// underlying type, and reaches the machinery through the methods below. No
// registry is filled at init and no public signature names an internal
// type.
package handle

import (
	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/engine"
)

// Source is one client's machinery: its runtime and its lock engine.
type Source struct {
	rt  *core.Runtime
	eng *engine.Engine
}

// New returns the Source of a client.
func New(rt *core.Runtime, eng *engine.Engine) *Source { return &Source{rt: rt, eng: eng} }

// Runtime returns the client's runtime; nil for a nil or zero Source.
func (s *Source) Runtime() *core.Runtime {
	if s == nil {
		return nil
	}
	return s.rt
}

// Engine returns the client's lock engine; nil for a nil or zero Source.
func (s *Source) Engine() *engine.Engine {
	if s == nil {
		return nil
	}
	return s.eng
}

// LockEngine returns the client's lock engine for the constructor fn of a
// lock kind, and panics for a nil or zero Source: a lock handle has no
// state to carry the error in, as (*redisson.Client)(nil).Lock never had.
func (s *Source) LockEngine(fn string) *engine.Engine {
	e := s.Engine()
	if e == nil {
		panic(fn + ": nil or zero source.Source (get one from (*redisson.Client).Source)")
	}
	return e
}
