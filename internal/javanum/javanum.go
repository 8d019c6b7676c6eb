// Package javanum writes and reads numbers as Redisson does: a Java
// Number delta as the text Redisson sends (BigDecimal's plain string) and
// the text HINCRBYFLOAT answers as a value of the delta's type. The map and
// the local cached map add with it.
package javanum

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/goredisson/redisson/codec"
)

// JavaDouble returns Java's Double.toString(d): "0.01", "9.0", "1.0E-4",
// "1.0E7", "NaN", "Infinity" (as StringCodec writes a double).
func JavaDouble(d float64) string {
	b, _ := codec.String().Encode(d) // a float64 always encodes
	return string(b)
}

// JavaPlain returns the text Redisson sends for a Java double (bits 64) or
// float (bits 32): BigDecimal.valueOf(d).toPlainString(), the
// Double.toString digits without an exponent. 9 is "9.0", 0.5 "0.5", 1e20
// "100000000000000000000", 1e-5 "0.000010" (Java prints "1.0E-5", whose
// BigDecimal keeps the zero). f must be finite.
func JavaPlain(f float64, bits int) string {
	if f == 0 {
		return "0.0" // BigDecimal has no negative zero
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	if f >= 1e-3 && f < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return sign + s
	}
	// Java's computerized scientific notation: d.ddd E n, at least one
	// fraction digit; BigDecimal then holds unscaled digits "dddd" with
	// scale len(frac) - n.
	e := strconv.FormatFloat(f, 'e', -1, bits) // "1.5e-05"
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	intPart, frac, _ := strings.Cut(mant, ".")
	if frac == "" {
		frac = "0"
	}
	digits := intPart + frac
	scale := len(frac) - exp
	if scale <= 0 {
		return sign + digits + strings.Repeat("0", -scale)
	}
	if len(digits) <= scale {
		return sign + "0." + strings.Repeat("0", scale-len(digits)) + digits
	}
	return sign + digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
}

// plainDecimalRE is the decimal text a string or Decimal delta may have.
var plainDecimalRE = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// DeltaText returns the text Redisson sends for a Number delta of Java's
// addAndGet/addScore (new BigDecimal(n.toString()).toPlainString()): an
// integer as it is, a float as Java's Double (Float) prints it, a
// codec.Decimal or a Numeric string as written (plain, no exponent).
func DeltaText(delta any) (string, error) {
	rv := reflect.ValueOf(delta)
	if !rv.IsValid() {
		return "", fmt.Errorf("the delta must not be nil")
	}
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(rv.Uint(), 10), nil
	case reflect.Float32, reflect.Float64:
		f := rv.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return "", fmt.Errorf("the delta %v is not a finite number", f)
		}
		return JavaPlain(f, rv.Type().Bits()), nil
	case reflect.String:
		s := rv.String()
		if !plainDecimalRE.MatchString(s) {
			return "", fmt.Errorf("the delta %q is not a plain decimal number", s)
		}
		return s, nil
	}
	return "", fmt.Errorf("the delta's type %T is not a number", delta)
}

// NumberResult converts Redis' reply to HINCRBYFLOAT (its text of the new
// value) into a value of like's type, as Redisson's NumberConvertor turns it
// into the delta's class: an integer type takes the text only when it is an
// integer in range (Java: Integer.parseInt, which throws on "15.5"), a float
// type parses it, a string type (codec.Decimal included) keeps it.
func NumberResult(text string, like reflect.Type) (reflect.Value, error) {
	v := reflect.New(like).Elem()
	switch like.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil || v.OverflowInt(n) {
			return v, fmt.Errorf("%w: the new value %s is not a %s (it was stored)", codec.ErrDecode, text, like)
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, err := strconv.ParseUint(text, 10, 64)
		if err != nil || v.OverflowUint(n) {
			return v, fmt.Errorf("%w: the new value %s is not a %s (it was stored)", codec.ErrDecode, text, like)
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(text, like.Bits())
		if err != nil {
			return v, fmt.Errorf("%w: the new value %s is not a %s (it was stored)", codec.ErrDecode, text, like)
		}
		v.SetFloat(f)
	case reflect.String:
		v.SetString(text)
	default:
		return v, fmt.Errorf("%w: %s is not a number type", codec.ErrDecode, like)
	}
	return v, nil
}

// Numeric reports whether t is a type AddAndGet can add to.
func Numeric(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.String:
		return true
	}
	return false
}
