// Package lua composes the library's Lua scripts from their .lua files.
//
// A script file starts with line comments ("--") that say which Redisson
// script it is (class, method, version) or, for a script of our own, why
// it exists; they are documentation and are never sent. The text sent is
// the rest of the file, byte for byte, with its fragment markers replaced:
// the SHA1 Redis and the interop records know a script by is the SHA1 of
// that text, so a stray space changes it.
//
// A marker is {{name}} or {{name key=value ...}}: the text of the fragment
// file fragments/name.lua (its own leading comment lines dropped and its
// own markers replaced), looked up first beside the script, in the
// fragments directory next to it, and then among the fragments shared by
// every package (this package's fragments directory). Inside a fragment,
// {{key}} is the value the marker gave key. Values are single words, such
// as KEYS[1] or ARGV[3]. Scripts never contain "{{" of their own.
package lua

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// shared holds the fragments every package's scripts may use.
//
//go:embed fragments/*.lua
var shared embed.FS

// maxDepth bounds fragment nesting, so that a fragment naming itself fails
// instead of recursing for ever.
const maxDepth = 8

// MustText returns the text of the script file name in fsys (a path such
// as "lua/acquire.lua"), ready to send: its leading comment lines dropped
// and its markers replaced. It panics if the file is missing, has no
// leading comment, or has a marker it cannot replace: scripts are composed
// once, when their package is initialised, and a wrong one is a bug the
// package's tests catch.
func MustText(fsys fs.FS, name string) string {
	text, err := Text(fsys, name)
	if err != nil {
		panic(err)
	}
	return text
}

// Text is MustText returning an error instead of panicking.
func Text(fsys fs.FS, name string) (string, error) {
	c := composer{local: fsys, dir: path.Join(path.Dir(name), "fragments")}
	src, err := c.file(fsys, name)
	if err != nil {
		return "", err
	}
	return c.expand(src, nil, 0)
}

// composer replaces the markers of one script's file.
type composer struct {
	local fs.FS  // the package's files
	dir   string // the package's fragments directory in local
}

// file reads name from fsys and drops its leading comment lines.
func (c composer) file(fsys fs.FS, name string) (string, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return "", fmt.Errorf("lua: %w", err)
	}
	src := string(b)
	if !strings.HasPrefix(src, "--") {
		return "", fmt.Errorf("lua: %s: no leading comment saying what the script is", name)
	}
	return Body(src), nil
}

// Body returns src without its leading comment lines: the lines up to the
// first that does not start with "--", each with its newline.
func Body(src string) string {
	for strings.HasPrefix(src, "--") {
		i := strings.IndexByte(src, '\n')
		if i < 0 {
			return ""
		}
		src = src[i+1:]
	}
	return src
}

// expand replaces the markers in src; args are the values of the fragment
// src is the text of (nil for a script).
func (c composer) expand(src string, args map[string]string, depth int) (string, error) {
	var out strings.Builder
	for {
		start := strings.Index(src, "{{")
		if start < 0 {
			out.WriteString(src)
			return out.String(), nil
		}
		end := strings.Index(src[start:], "}}")
		if end < 0 {
			return "", fmt.Errorf("lua: unclosed marker %.40q", src[start:])
		}
		text, err := c.marker(src[start+2:start+end], args, depth)
		if err != nil {
			return "", err
		}
		out.WriteString(src[:start])
		out.WriteString(text)
		src = src[start+end+2:]
	}
}

// marker returns the text of one marker (what is between its braces).
func (c composer) marker(m string, args map[string]string, depth int) (string, error) {
	f := strings.Fields(m)
	if len(f) == 0 {
		return "", fmt.Errorf("lua: empty marker")
	}
	if v, ok := args[f[0]]; ok && len(f) == 1 {
		return v, nil
	}
	if depth >= maxDepth {
		return "", fmt.Errorf("lua: fragment %s nested more than %d deep", f[0], maxDepth)
	}
	fa := make(map[string]string, len(f)-1)
	for _, kv := range f[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return "", fmt.Errorf("lua: marker %q: %q is not key=value", m, kv)
		}
		fa[k] = v
	}
	src, err := c.fragment(f[0])
	if err != nil {
		return "", err
	}
	return c.expand(src, fa, depth+1)
}

// fragment returns the text of the fragment name: the package's own, else
// the shared one.
func (c composer) fragment(name string) (string, error) {
	file := name + ".lua"
	if _, err := fs.Stat(c.local, path.Join(c.dir, file)); err == nil {
		return c.file(c.local, path.Join(c.dir, file))
	}
	if _, err := fs.Stat(shared, path.Join("fragments", file)); err == nil {
		return c.file(shared, path.Join("fragments", file))
	}
	return "", fmt.Errorf("lua: no fragment %s (in %s or the shared fragments)", name, c.dir)
}
