// Package luatest checks, for a package's tests, that its scripts send
// exactly the text they sent before they lived in .lua files: the SHA1 of
// every script is listed in testdata/scripts.golden, which the interop
// records of the Redisson-identical ones are checked against too.
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
	Origin  string // "redisson" (Redisson's text, byte for byte) or "ours"
	Name    string // the script's name, as core.NewScript was given it
}

// Golden returns the golden list: every script of the library.
func Golden() ([]Entry, error) {
	var out []Entry
	for i, line := range strings.Split(strings.TrimSpace(golden), "\n") {
		f := strings.SplitN(line, " ", 4)
		if len(f) != 4 || len(f[0]) != 40 || (f[2] != "redisson" && f[2] != "ours") {
			return nil, fmt.Errorf("scripts.golden line %d: %q", i+1, line)
		}
		out = append(out, Entry{SHA1: f[0], Package: f[1], Origin: f[2], Name: f[3]})
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
