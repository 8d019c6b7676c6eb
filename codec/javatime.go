package codec

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The range of a java.util.Date: a long of milliseconds since the epoch.
var (
	minDate = time.UnixMilli(math.MinInt64)
	maxDate = time.UnixMilli(math.MaxInt64)
)

// dateMillis returns t as the milliseconds of a java.util.Date. Java keeps
// no more than milliseconds; the rest is cut off as Date.from(Instant) does
// (towards the past).
func dateMillis(t time.Time) (int64, error) {
	if t.Before(minDate) || t.After(maxDate) {
		return 0, fmt.Errorf("time %s is outside the range of a java.util.Date", t.Format(time.RFC3339))
	}
	return t.UnixMilli(), nil
}

// dateLayouts are the texts Jackson's date parser (StdDateFormat) reads
// for a java.util.Date, as the records show: RFC 3339 with or without a
// fraction, an offset with or without a colon, and a date alone (midnight
// UTC).
var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02",
}

// parseDate reads a date text.
func parseDate(s string) (time.Time, error) {
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%.40q is not a date Java reads (RFC 3339 or yyyy-MM-dd)", s)
}

// instantString writes t as Java's Instant.toString: UTC, the fraction in
// groups of three digits, only as long as needed; years beyond 9999 with a
// sign. It is what StringCodec stores for an Instant.
func instantString(t time.Time) string {
	t = t.UTC()
	var b strings.Builder
	switch y := t.Year(); {
	case y > 9999:
		b.WriteString("+" + strconv.Itoa(y))
	case y < 0:
		fmt.Fprintf(&b, "-%04d", -y)
	default:
		fmt.Fprintf(&b, "%04d", y)
	}
	b.WriteString(t.Format("-01-02T15:04:05"))
	if ns := t.Nanosecond(); ns != 0 {
		frac := fmt.Sprintf(".%09d", ns)
		switch {
		case ns%1_000_000 == 0:
			frac = frac[:4]
		case ns%1000 == 0:
			frac = frac[:7]
		}
		b.WriteString(frac)
	}
	b.WriteByte('Z')
	return b.String()
}

// durationString writes d as Java's Duration.toString: "PT" then hours,
// minutes and seconds, each only when not zero ("PT0S" for zero). Java
// keeps a Duration as whole seconds rounded down plus a positive nanosecond
// part, which is why -1.5 s is "PT-1.5S" and -0.5 s "PT-0.5S".
func durationString(d time.Duration) string {
	if d == 0 {
		return "PT0S"
	}
	secs := int64(d) / 1e9
	nanos := int64(d) % 1e9
	if nanos < 0 {
		secs--
		nanos += 1e9
	}
	total := secs
	if secs < 0 && nanos > 0 {
		total++
	}
	hours, minutes, s := total/3600, total%3600/60, total%60
	var b strings.Builder
	b.WriteString("PT")
	if hours != 0 {
		b.WriteString(strconv.FormatInt(hours, 10) + "H")
	}
	if minutes != 0 {
		b.WriteString(strconv.FormatInt(minutes, 10) + "M")
	}
	if s == 0 && nanos == 0 && b.Len() > 2 {
		return b.String()
	}
	if secs < 0 && nanos > 0 && s == 0 {
		b.WriteString("-0")
	} else {
		b.WriteString(strconv.FormatInt(s, 10))
	}
	if nanos > 0 {
		frac := nanos
		if secs < 0 {
			frac = 1e9 - nanos
		}
		b.WriteString(strings.TrimRight(fmt.Sprintf(".%09d", frac), "0"))
	}
	b.WriteByte('S')
	return b.String()
}

var errDurationSyntax = errors.New("not an ISO-8601 duration (PnDTnHnMn.nS)")

// parseDuration reads what Java's Duration.parse reads:
// [-]P[nD][T[nH][nM][n[.n]S]], each number with an optional sign.
func parseDuration(s string) (time.Duration, error) {
	orig := s
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) < 2 || (s[0] != 'P' && s[0] != 'p') {
		return 0, fmt.Errorf("%.40q: %w", orig, errDurationSyntax)
	}
	s = s[1:]
	var total nanoSum
	units := []struct {
		letter byte
		ns     int64
		time   bool
	}{{'D', 86400e9, false}, {'H', 3600e9, true}, {'M', 60e9, true}, {'S', 1e9, true}}
	inTime, seen := false, false
	u := 0
	for s != "" {
		if !inTime && (s[0] == 'T' || s[0] == 't') {
			inTime = true
			s = s[1:]
			if s == "" {
				return 0, fmt.Errorf("%.40q: %w", orig, errDurationSyntax)
			}
			continue
		}
		i := 0
		if s[0] == '-' || s[0] == '+' {
			i++
		}
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == ',') {
			i++
		}
		if i == 0 || i == len(s) {
			return 0, fmt.Errorf("%.40q: %w", orig, errDurationSyntax)
		}
		num, letter := s[:i], s[i]&^0x20
		s = s[i+1:]
		for u < len(units) && (units[u].letter != letter || units[u].time != inTime) {
			u++
		}
		if u == len(units) {
			return 0, fmt.Errorf("%.40q: %w", orig, errDurationSyntax)
		}
		ns, ok := unitNanos(num, units[u].ns, units[u].letter == 'S')
		if !ok || !total.add(ns) {
			return 0, fmt.Errorf("%.40q: %w or beyond a time.Duration", orig, errDurationSyntax)
		}
		u++
		seen = true
	}
	if !seen {
		return 0, fmt.Errorf("%.40q: %w", orig, errDurationSyntax)
	}
	if neg {
		total.v = -total.v
	}
	return time.Duration(total.v), nil
}

// nanoSum sums nanoseconds, failing on int64 overflow.
type nanoSum struct{ v int64 }

func (b *nanoSum) add(n int64) bool {
	s := b.v + n
	if (n > 0 && s < b.v) || (n < 0 && s > b.v) {
		return false
	}
	b.v = s
	return true
}

// unitNanos converts one number of a duration text to nanoseconds; only
// seconds may have a fraction (up to nine digits).
func unitNanos(num string, unit int64, fraction bool) (int64, bool) {
	neg := strings.HasPrefix(num, "-")
	num = strings.TrimLeft(num, "+-")
	whole, frac, hasFrac := strings.Cut(strings.Replace(num, ",", ".", 1), ".")
	if whole == "" || !allDigits(whole) || hasFrac && (!fraction || frac == "" || len(frac) > 9 || !allDigits(frac)) {
		return 0, false
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w > math.MaxInt64/unit {
		return 0, false
	}
	ns := w * unit
	if hasFrac {
		f, _ := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
		if ns > math.MaxInt64-f {
			return 0, false
		}
		ns += f
	}
	if neg {
		ns = -ns
	}
	return ns, true
}
