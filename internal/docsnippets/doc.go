// Package docsnippets has no code: its test compiles the Go snippets of the
// README as they are written, in a module of their own that uses this one.
//
// The convention the snippets follow: in a Markdown section (a "##"
// heading), a ```go block that starts with a package clause is a Go file of
// its own (a complete program, or the imports and declarations the
// section's snippets share, shown once at its top); every later ```go block
// of the section is a function body, compiled as
//
//	func _() error { <the block>; return nil }
//
// after that file, so it may return an error and use what the file
// declares. Local variables and imports a snippet shows without using are
// allowed (a snippet is a part of the caller's code). A block that is not
// Go, or is not meant to compile, takes another fence (```text, ```sh).
package docsnippets
