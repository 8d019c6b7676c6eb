// Package luatest checks, for a package's tests, that its scripts send
// exactly the text they always have: testdata/scripts.golden lists every
// script with the SHA1 of its text, the SHA1 Redis, the interop records
// and Java peers know it by. The records are checked against the list
// too, for the scripts that are Redisson's text.
//
// A line of the list: SHA1, package directory, origin, file in the
// package's lua/, name. The origin is "ours", or Redisson's text byte for
// byte: "redisson" (sent by Redisson 3.52.0 and 4.7.0 in the records),
// "redisson-4.7" (4.7.0's text, in its records only; 3.52.0 sent another)
// or "redisson-source" (both tags' source, in no record).
// A deliberate change to one of our scripts changes its SHA1 here in the
// same commit; a Redisson script's text is never changed.
package luatest

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"testing"
)

//go:embed testdata/scripts.golden
var golden string

// Script is what Check reads of a script (core.Script has both).
type Script interface {
	Name() string
	Hash() string
}

// Entry is one line of the golden list.
type Entry struct {
	SHA1    string // of the text sent
	Package string // the directory of the package that declares it
	Origin  string // "redisson", "redisson-4.7", "redisson-source" (Redisson's text, byte for byte) or "ours"
	File    string // in the package's lua directory
	Name    string // the script's name, as core.NewScript was given it
}

// origins are the origins a line of the golden list may name.
var origins = map[string]bool{"redisson": true, "redisson-4.7": true, "redisson-source": true, "ours": true}

// Golden returns the golden list: every script of the library.
func Golden() ([]Entry, error) {
	var out []Entry
	for i, line := range strings.Split(strings.TrimSpace(golden), "\n") {
		f := strings.SplitN(line, " ", 5)
		if len(f) != 5 || len(f[0]) != 40 || !origins[f[2]] || !strings.HasSuffix(f[3], ".lua") {
			return nil, fmt.Errorf("scripts.golden line %d: %q", i+1, line)
		}
		out = append(out, Entry{SHA1: f[0], Package: f[1], Origin: f[2], File: f[3], Name: f[4]})
	}
	return out, nil
}

// Check fails t unless scripts are exactly the golden list's scripts of
// the package pkg (a directory such as "rlock"), each with its SHA1.
func Check(t *testing.T, pkg string, scripts ...Script) {
	t.Helper()
	entries, err := Golden()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, e := range entries {
		if e.Package == pkg {
			want[e.Name] = e.SHA1
		}
	}
	seen := map[string]bool{}
	for _, s := range scripts {
		sha, ok := want[s.Name()]
		switch {
		case !ok:
			t.Errorf("script %q is not in scripts.golden for %s", s.Name(), pkg)
		case seen[s.Name()]:
			t.Errorf("script %q checked twice", s.Name())
		case s.Hash() != sha:
			t.Errorf("script %q: SHA1 %s, golden %s: its text changed", s.Name(), s.Hash(), sha)
		}
		seen[s.Name()] = true
	}
	var missing []string
	for name := range want {
		if !seen[name] {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("scripts of %s in scripts.golden but not checked: %q", pkg, missing)
	}
}
