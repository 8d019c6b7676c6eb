package ls

import (
	"errors"

	"github.com/redis/go-redis/v9"
)

// Glob reports whether s matches the glob pattern as Redis' SCAN MATCH
// does: * any run, ? one byte, [abc], [^abc] and [a-z] one of a set, \x
// the byte x. Bytes, not runes, as Redis compares.
func Glob(pattern, s string) bool {
	for len(pattern) > 0 {
		switch pattern[0] {
		case '*':
			for len(pattern) > 1 && pattern[1] == '*' {
				pattern = pattern[1:]
			}
			if len(pattern) == 1 {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if Glob(pattern[1:], s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if len(s) == 0 {
				return false
			}
		case '[':
			if len(s) == 0 {
				return false
			}
			var ok bool
			if ok, pattern = globSet(pattern[1:], s[0]); !ok {
				return false
			}
			pattern, s = pattern[1:], s[1:]
			continue
		case '\\':
			if len(pattern) > 1 {
				pattern = pattern[1:]
			}
			fallthrough
		default:
			if len(s) == 0 || s[0] != pattern[0] {
				return false
			}
		}
		pattern, s = pattern[1:], s[1:]
	}
	return len(s) == 0
}

// globSet matches c against the set that p (after its '[') starts with;
// it returns what is left of p from the closing ']' on (at its end when the
// set is not closed, as Redis takes it).
func globSet(p string, c byte) (bool, string) {
	not := len(p) > 0 && p[0] == '^'
	if not {
		p = p[1:]
	}
	match := false
	for len(p) > 0 && p[0] != ']' {
		switch {
		case p[0] == '\\' && len(p) > 1:
			match = match || p[1] == c
			p = p[2:]
		case len(p) > 2 && p[1] == '-' && p[2] != ']':
			lo, hi := p[0], p[2]
			if lo > hi {
				lo, hi = hi, lo
			}
			match = match || (c >= lo && c <= hi)
			p = p[3:]
		default:
			match = match || p[0] == c
			p = p[1:]
		}
	}
	if len(p) == 0 {
		p = "]" // unclosed: the caller steps over this stand-in
	}
	return match != not, p
}

// isRedisErr reports an error reply of Redis (an unknown subcommand on an
// old server), as opposed to a network failure.
func isRedisErr(err error) bool {
	var re redis.Error
	return errors.As(err, &re)
}
