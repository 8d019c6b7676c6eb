package codec

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonFormat writes JSON as Jackson's generator does (compact, non-ASCII
// as UTF-8, control characters escaped, not-finite doubles quoted) and
// parses any valid JSON.
type jsonFormat struct{}

func (jsonFormat) write(n *node) ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, n); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, n *node) error {
	switch n.kind {
	case kNull:
		b.WriteString("null")
	case kBool:
		b.WriteString(strconv.FormatBool(n.b))
	case kInt:
		b.WriteString(strconv.FormatInt(n.i, 10))
	case kUint:
		b.WriteString(strconv.FormatUint(n.u, 10))
	case kBigInt, kDecimal:
		b.WriteString(n.s)
	case kFloat:
		if n.lit != "" {
			b.WriteString(n.lit)
			return nil
		}
		bits := 64
		if n.f32 {
			bits = 32
		}
		s := javaFloat(n.f, bits)
		if math.IsNaN(n.f) || math.IsInf(n.f, 0) {
			// QUOTE_NON_NUMERIC_NUMBERS, on by default.
			s = `"` + s + `"`
		}
		b.WriteString(s)
	case kString:
		writeJSONString(b, n.s)
	case kBytes:
		b.WriteByte('"')
		b.WriteString(base64.StdEncoding.EncodeToString(n.bin))
		b.WriteByte('"')
	case kArray:
		b.WriteByte('[')
		for i := range n.arr {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, &n.arr[i]); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case kObject:
		b.WriteByte('{')
		for i := range n.obj {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, n.obj[i].key)
			b.WriteByte(':')
			if err := writeJSON(b, &n.obj[i].val); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	}
	return nil
}

const hexDigits = "0123456789ABCDEF"

// writeJSONString escapes as Jackson does: '"' and '\\', the control
// characters below 0x20 (\b \t \n \f \r, others \u00XX with upper-case
// hex), characters beyond U+FFFF as their UTF-16 surrogate pair
// (\uD83D\uDE00, as the records show); everything else as UTF-8.
func writeJSONString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c >= 0xF0:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError || r < 0x10000 {
				b.WriteByte(c) // not UTF-8 here: Encode refuses such strings before
				continue
			}
			hi, lo := utf16.EncodeRune(r)
			writeUnicodeEscape(b, hi)
			writeUnicodeEscape(b, lo)
			i += size - 1
		case c >= 0x20:
			b.WriteByte(c)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\f':
			b.WriteString(`\f`)
		case c == '\r':
			b.WriteString(`\r`)
		default:
			writeUnicodeEscape(b, rune(c))
		}
	}
	b.WriteByte('"')
}

// writeUnicodeEscape writes \uXXXX with upper-case hex.
func writeUnicodeEscape(b *bytes.Buffer, r rune) {
	b.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(hexDigits[(r>>shift)&0xF])
	}
}

func (jsonFormat) parse(data []byte) (node, error) {
	if !utf8.Valid(data) {
		return node{}, errors.New("input is not UTF-8")
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	n, err := parseJSONValue(d, 0)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return node{}, errors.New("unexpected end of JSON input")
		}
		return node{}, err
	}
	if _, err := d.Token(); err != io.EOF {
		return node{}, fmt.Errorf("data after the JSON value at offset %d", d.InputOffset())
	}
	return n, nil
}

func parseJSONValue(d *json.Decoder, depth int) (node, error) {
	tok, err := d.Token()
	if err != nil {
		return node{}, err
	}
	switch t := tok.(type) {
	case nil:
		return node{kind: kNull}, nil
	case bool:
		return node{kind: kBool, b: t}, nil
	case string:
		return node{kind: kString, s: t}, nil
	case json.Number:
		return parseJSONNumber(string(t))
	case json.Delim:
		if depth >= maxDepth {
			return node{}, fmt.Errorf("nesting deeper than %d", maxDepth)
		}
		switch t {
		case '[':
			n := node{kind: kArray, arr: []node{}}
			for d.More() {
				v, err := parseJSONValue(d, depth+1)
				if err != nil {
					return node{}, err
				}
				n.arr = append(n.arr, v)
			}
			_, err := d.Token() // ']'
			return n, err
		case '{':
			n := node{kind: kObject, obj: []member{}}
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return node{}, err
				}
				v, err := parseJSONValue(d, depth+1)
				if err != nil {
					return node{}, err
				}
				n.obj = append(n.obj, member{key: k.(string), val: v})
			}
			_, err := d.Token() // '}'
			return n, err
		}
	}
	return node{}, fmt.Errorf("unexpected JSON token %v", tok)
}

func parseJSONNumber(s string) (node, error) {
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return node{kind: kInt, i: i}, nil
		}
		if u, err := strconv.ParseUint(s, 10, 64); err == nil {
			return node{kind: kUint, u: u}, nil
		}
		// Jackson reads a BigInteger; the digits are kept as they are.
		if len(s) > maxScale {
			return node{}, fmt.Errorf("integer of %d digits is longer than %d", len(s), maxScale)
		}
		return node{kind: kBigInt, s: s}, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return node{}, fmt.Errorf("bad number %.40s", s)
	}
	// The digits as written decode a BigDecimal without loss.
	return node{kind: kFloat, f: f, lit: s}, nil
}
