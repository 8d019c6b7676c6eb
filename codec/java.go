package codec

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// javaFloat formats f as Java's Double.toString (bits 64) or Float.toString
// (bits 32) does: decimal notation with at least one fractional digit for
// 10^-3 <= |f| < 10^7, otherwise "d.dddE<exp>"; the digits are the shortest
// that round-trip. Not finite values give "NaN", "Infinity", "-Infinity".
func javaFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	s := strconv.FormatFloat(f, 'e', -1, bits) // [-]d[.ddd]e±xx
	var b strings.Builder
	if s[0] == '-' {
		b.WriteByte('-')
		s = s[1:]
	}
	e := strings.IndexByte(s, 'e')
	exp, _ := strconv.Atoi(s[e+1:])
	digits := strings.Replace(s[:e], ".", "", 1)
	if exp >= -3 && exp < 7 {
		if exp < 0 {
			b.WriteString("0.")
			b.WriteString(strings.Repeat("0", -exp-1))
			b.WriteString(digits)
			return b.String()
		}
		if len(digits) <= exp+1 {
			b.WriteString(digits)
			b.WriteString(strings.Repeat("0", exp+1-len(digits)))
			b.WriteString(".0")
			return b.String()
		}
		b.WriteString(digits[:exp+1])
		b.WriteByte('.')
		b.WriteString(digits[exp+1:])
		return b.String()
	}
	if len(digits) == 1 {
		// Java writes at least two digits here (d.dE..) and picks the
		// two-digit decimal closest to f, not the shortest digit plus a
		// zero: Double.MIN_VALUE is 4.9E-324, not 5.0E-324.
		s = strconv.FormatFloat(math.Abs(f), 'e', 1, bits)
		digits = s[:1] + s[2:3]
		exp, _ = strconv.Atoi(s[4:])
	}
	b.WriteString(digits[:1])
	b.WriteByte('.')
	b.WriteString(digits[1:])
	b.WriteByte('E')
	b.WriteString(strconv.Itoa(exp))
	return b.String()
}

// javaStringHash is Java's String.hashCode over the UTF-16 code units of s.
func javaStringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			h = 31*h + r1
			h = 31*h + r2
			continue
		}
		h = 31*h + r
	}
	return h
}

// compareJava compares two strings as Java's String.compareTo does (by
// UTF-16 code units), which differs from Go's byte order only for
// characters beyond U+FFFF against U+E000..U+FFFF.
func compareJava(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			ua, ub := utf16Lead(ra), utf16Lead(rb)
			if ua != ub {
				if ua < ub {
					return -1
				}
				return 1
			}
			// Same lead unit: both are beyond U+FFFF; order by the rune.
			if ra < rb {
				return -1
			}
			return 1
		}
		a, b = a[na:], b[nb:]
	}
	switch {
	case a == "" && b == "":
		return 0
	case a == "":
		return -1
	}
	return 1
}

// utf16Lead returns the first UTF-16 code unit of r.
func utf16Lead(r rune) rune {
	if r >= 0x10000 {
		r1, _ := utf16.EncodeRune(r)
		return r1
	}
	return r
}

// hashMapOrder sorts entries into the iteration order of a
// java.util.HashMap created with the default capacity and filled by put()
// in key order (numbers by value, text as Java compares it): by bucket index
// (the spread hash masked by the table size the map has grown to), then by
// insertion order.
func hashMapOrder(entries []mapEntry) {
	sort.Slice(entries, func(i, j int) bool {
		a, b := &entries[i], &entries[j]
		switch {
		case a.intKey && a.signed:
			return a.i < b.i
		case a.intKey:
			return a.u < b.u
		}
		return compareJava(a.key, b.key) < 0
	})
	size := 16
	for len(entries) > size*3/4 {
		size *= 2
	}
	mask := uint32(size - 1)
	index := func(h int32) uint32 {
		u := uint32(h)
		return (u ^ u>>16) & mask
	}
	sort.SliceStable(entries, func(i, j int) bool { return index(entries[i].hash) < index(entries[j].hash) })
}

// javaName returns the property name Go field name gets without a tag: the
// leading capitals lowered, keeping the last one of a run followed by a
// lower-case letter (ID → id, URLPath → urlPath, Name → name).
func javaName(goName string) string {
	r := []rune(goName)
	n := 0
	for n < len(r) && r[n] >= 'A' && r[n] <= 'Z' {
		n++
	}
	if n > 1 && n < len(r) {
		n-- // the last capital starts the next word
	}
	for i := 0; i < n; i++ {
		r[i] += 'a' - 'A'
	}
	return string(r)
}
