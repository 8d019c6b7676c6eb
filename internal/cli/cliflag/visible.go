package cliflag

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Visible is a name (a key, a channel, a client's program or host) as the
// commands print it: unchanged when every character is printable, else
// quoted as Go quotes strings, with its control characters escaped (\x1b,
// \n, \a, \u202e, a byte that is not UTF-8 as \xff). A name read from Redis
// is anyone's to choose: printed raw, an escape sequence would reach the
// terminal (colours, the window title, the bell) and a newline would forge
// a line of the listing. A name that starts with a double quote is quoted
// too, so that a quoted name always means an escaped one.
func Visible(s string) string {
	if printable(s) && !strings.HasPrefix(s, `"`) {
		return s
	}
	return strconv.Quote(s)
}

// printable reports whether every character of s is valid UTF-8 that
// strconv.IsPrint accepts (letters, marks, numbers, punctuation, symbols
// and the ASCII space).
func printable(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || !strconv.IsPrint(r) {
			return false
		}
	}
	return true
}
