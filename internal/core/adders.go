package core

import "sync"

// AdderGroup is the adders of one name in one client (package adder's
// group): they share one subscription to the name's topic, because Redis
// counts a client's subscription once when it answers PUBLISH, so the
// client must answer a sum or reset once, for all of them.
type AdderGroup interface {
	// AdderTopic is the channel the group listens on.
	AdderTopic() string
}

// AdderGroups is the adder groups of one client, by adder name: the one
// piece of per-client state an object package keeps beyond the lock
// engine's (Runtime.Adders).
type AdderGroups struct {
	m sync.Map // name → AdderGroup
}

// Group returns the group of name, made by mk when there is none.
func (a *AdderGroups) Group(name string, mk func() AdderGroup) AdderGroup {
	if g, ok := a.m.Load(name); ok {
		return g.(AdderGroup)
	}
	g, _ := a.m.LoadOrStore(name, mk())
	return g.(AdderGroup)
}

// Drop removes name's group if it is still g: its last member left.
func (a *AdderGroups) Drop(name string, g AdderGroup) { a.m.CompareAndDelete(name, g) }
