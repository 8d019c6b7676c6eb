package core

import "testing"

func TestLocals(t *testing.T) {
	rt := &Runtime{}
	ref1 := rt.Local("k", func() any { return new(int) })
	ref2, ok := rt.Peek("k")
	if !ok || ref1.Value() != ref2.Value() {
		t.Fatalf("peek while used: ok=%v same=%v", ok, ok && ref1.Value() == ref2.Value())
	}
	ref2.Release()
	ref3, ok := rt.Peek("k")
	if !ok {
		t.Fatal("entry dropped while still used")
	}
	ref3.Release()
	ref1.Release()
	ref1.Release()
	if _, ok := rt.Peek("k"); ok {
		t.Fatal("entry kept after the last user left")
	}
	ref4 := rt.Local("k", func() any { return new(int) })
	if ref4.Value() == ref1.Value() {
		t.Fatal("a dropped entry came back")
	}
	ref4.Release()
}
