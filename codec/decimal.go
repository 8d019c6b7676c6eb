package codec

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Decimal is a decimal number kept as text: the Go side of Java's
// java.math.BigDecimal. Unlike a float64 or a big.Float it keeps every digit
// and the scale, so Decimal("19.990") written by Go reads in Java as
// new BigDecimal("19.990"), equal to it, and back.
//
// Any text Java's new BigDecimal(String) accepts may be encoded ("1E+3",
// "+.5", "007"); the codecs write it in plain notation, as Redisson's mapper
// writes a BigDecimal ("1000", "0.5", "7"), and decoding always gives that
// plain form. The empty Decimal is Java's null. Other text that is not a
// number is an error at Encode.
type Decimal string

// MarshalJSON writes d as a JSON number in plain notation (the empty
// Decimal as null), so that encoding/json prints a Decimal decoded by this
// package as a number.
func (d Decimal) MarshalJSON() ([]byte, error) {
	if d == "" {
		return []byte("null"), nil
	}
	plain, err := d.plain()
	if err != nil {
		return nil, err
	}
	return []byte(plain), nil
}

// UnmarshalJSON reads a JSON number or a JSON string holding one.
func (d *Decimal) UnmarshalJSON(data []byte) error {
	s := string(data)
	if s == "null" {
		return nil // as encoding/json leaves a value on null
	}
	if uq, err := strconv.Unquote(s); err == nil {
		s = uq
	}
	plain, err := Decimal(s).plain()
	if err != nil {
		return err
	}
	*d = Decimal(plain)
	return nil
}

// plain returns d in plain notation, or why d is not a number.
func (d Decimal) plain() (string, error) {
	dec, ok := parseDecimal(string(d))
	if !ok {
		return "", fmt.Errorf("Decimal %.40q is not a decimal number", string(d))
	}
	return dec.plain(), nil
}

// decimal is a number as Java's BigDecimal holds it: an unscaled integer
// (its digits, no leading zeros; "0" for zero) and a scale, the value being
// unscaled × 10^-scale.
type decimal struct {
	neg    bool
	digits string
	scale  int
}

// maxScale bounds the exponent of a parsed decimal, so that writing it in
// plain notation cannot take gigabytes (Java's limit is far larger, but no
// value a peer stores needs more than this).
const maxScale = 10000

// parseDecimal parses what new BigDecimal(String) accepts: an optional sign,
// digits with an optional point (at least one digit), an optional exponent.
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	if s != "" && (s[0] == '+' || s[0] == '-') {
		d.neg = s[0] == '-'
		s = s[1:]
	}
	mant, exp, hasExp := s, "", false
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp, hasExp = s[:i], s[i+1:], true
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" && frac == "" || !allDigits(intPart) || !allDigits(frac) || strings.Count(mant, ".") > 1 {
		return d, false
	}
	e := 0
	if hasExp {
		if exp != "" && (exp[0] == '+' || exp[0] == '-') && len(exp) > 1 {
			if !allDigits(exp[1:]) {
				return d, false
			}
		} else if exp == "" || !allDigits(exp) {
			return d, false
		}
		n, err := strconv.Atoi(exp)
		if err != nil || n > maxScale || n < -maxScale {
			return d, false
		}
		e = n
	}
	d.digits = strings.TrimLeft(intPart+frac, "0")
	if d.digits == "" {
		d.digits = "0"
		d.neg = false // BigDecimal has no negative zero
	}
	d.scale = len(frac) - e
	if d.scale > maxScale || d.scale < -maxScale {
		return d, false
	}
	return d, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// plain writes d as BigDecimal.toPlainString does (and Redisson's mapper,
// which writes BigDecimal as plain numbers): no exponent, the scale's
// digits after the point.
func (d decimal) plain() string {
	var b strings.Builder
	if d.neg {
		b.WriteByte('-')
	}
	switch {
	case d.digits == "0" && d.scale <= 0:
		b.WriteString("0")
	case d.scale <= 0:
		b.WriteString(d.digits)
		b.WriteString(strings.Repeat("0", -d.scale))
	default:
		digits := d.digits
		if len(digits) <= d.scale {
			digits = strings.Repeat("0", d.scale-len(digits)+1) + digits
		}
		b.WriteString(digits[:len(digits)-d.scale])
		b.WriteByte('.')
		b.WriteString(digits[len(digits)-d.scale:])
	}
	return b.String()
}

// stripped is BigDecimal.stripTrailingZeros.
func (d decimal) stripped() decimal {
	if d.digits == "0" {
		return decimal{digits: "0"}
	}
	t := strings.TrimRight(d.digits, "0")
	d.scale -= len(d.digits) - len(t)
	d.digits = t
	return d
}

// integer returns the value of d when it has no fractional part (what
// BigDecimal.toBigIntegerExact accepts).
func (d decimal) integer() (*big.Int, bool) {
	s := d.stripped()
	if s.scale > 0 {
		return nil, false
	}
	x, ok := new(big.Int).SetString(s.digits+strings.Repeat("0", -s.scale), 10)
	if ok && s.neg {
		x.Neg(x)
	}
	return x, ok
}

// msgpackDecimal is what msgpack-java's Jackson generator writes for a
// BigDecimal: an integer when it has no fractional part, otherwise a double
// when the double's Java text (BigDecimal.valueOf) is the same number with
// the same digits, otherwise it refuses the value. This side refuses more:
// a decimal whose digits the MessagePack number would not give back, since
// MessagePack keeps no scale (Java writes 2.50 as the double 2.5 and reads
// back 2.5, which its equals() tells from 2.50).
func msgpackDecimal(d decimal) (node, error) {
	if x, ok := d.integer(); ok {
		if d.scale > 0 {
			return node{}, fmt.Errorf("BigDecimal %s would read back as %s: MessagePack keeps no scale", d.plain(), x)
		}
		return msgpackBigInt(x)
	}
	f, err := strconv.ParseFloat(d.plain(), 64)
	if err != nil || math.IsInf(f, 0) {
		return node{}, fmt.Errorf("BigDecimal %s does not fit a double, which MessagePack needs", d.plain())
	}
	back, _ := parseDecimal(javaFloat(f, 64))
	if s := d.stripped(); s != back {
		return node{}, fmt.Errorf("BigDecimal %s is not exactly the double %s, and msgpack-java refuses to write it", d.plain(), javaFloat(f, 64))
	}
	if short := strconv.FormatFloat(f, 'f', -1, 64); short != d.plain() {
		return node{}, fmt.Errorf("BigDecimal %s would read back as %s: MessagePack keeps no scale", d.plain(), short)
	}
	return node{kind: kFloat, f: f}, nil
}

// bigIntNode is an integer node for x: kInt or kUint when it fits 64 bits.
func bigIntNode(x *big.Int) node {
	switch {
	case x.IsInt64():
		return node{kind: kInt, i: x.Int64()}
	case x.IsUint64():
		return node{kind: kUint, u: x.Uint64()}
	}
	return node{kind: kBigInt, s: x.String()}
}

// msgpackBigInt is what msgpack-java writes for a BigInteger: an int64, a
// uint64, or a refusal beyond.
func msgpackBigInt(x *big.Int) (node, error) {
	n := bigIntNode(x)
	if n.kind == kBigInt {
		return node{}, fmt.Errorf("BigInteger %.40s does not fit 64 bits, and MessagePack has no larger integer", n.s)
	}
	return n, nil
}

// numberText returns the decimal text of a number node, as Jackson reads a
// BigDecimal or BigInteger from it; numeric strings count too (Jackson
// accepts "12345.678900" for a BigDecimal).
func numberText(n *node) (string, bool) {
	switch n.kind {
	case kInt:
		return strconv.FormatInt(n.i, 10), true
	case kUint:
		return strconv.FormatUint(n.u, 10), true
	case kBigInt, kDecimal:
		return n.s, true
	case kFloat:
		if n.lit != "" {
			return n.lit, true
		}
		if math.IsNaN(n.f) || math.IsInf(n.f, 0) {
			return "", false
		}
		bits := 64
		if n.f32 {
			bits = 32
		}
		return strconv.FormatFloat(n.f, 'f', -1, bits), true
	case kString:
		if _, ok := parseDecimal(n.s); ok {
			return n.s, true
		}
	}
	return "", false
}

// bigFloatPrec is the precision a big.Float decoded from d gets when the
// target has none: enough bits for every digit, at least a float64's.
func bigFloatPrec(d decimal) uint {
	bits := uint(math.Ceil(float64(len(d.digits))*math.Log2(10))) + 2
	return max(bits, 64)
}
