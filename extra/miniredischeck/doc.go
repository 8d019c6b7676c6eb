// Package miniredischeck measures which objects of redisson-go work on
// github.com/alicebob/miniredis/v2, an in-process Redis fake many Go tests
// use. It has no code of its own: its test runs every object's basic
// operations on miniredis and asserts the measured table, which
// docs/testing.md reproduces with the reason of each failure. It is a module
// of its own so that the main module does not depend on miniredis.
package miniredischeck
