package core

import "testing"

func TestLocals(t *testing.T) {
	rt := &Runtime{}
	v1, rel1 := rt.Local("k", func() any { return new(int) })
	v2, rel2, ok := rt.Peek("k")
	if !ok || v1 != v2 {
		t.Fatalf("peek while used: ok=%v same=%v", ok, v1 == v2)
	}
	rel2()
	_, rel3, ok := rt.Peek("k")
	if !ok {
		t.Fatal("entry dropped while still used")
	}
	rel3()
	rel1()
	rel1()
	if _, _, ok := rt.Peek("k"); ok {
		t.Fatal("entry kept after the last user left")
	}
}
