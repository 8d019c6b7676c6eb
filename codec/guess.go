package codec

import (
	"regexp"
	"unicode"
	"unicode/utf8"

	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// The names Guess returns: the --codec names of the redisson command.
const (
	GuessJSON    = "json"    // JsonJackson
	GuessMsgPack = "msgpack" // MsgPackJackson
	GuessString  = "string"  // StringCodec (or LongCodec)
	GuessBytes   = "bytes"   // ByteArrayCodec, or a Java-only codec such as Kryo5Codec
)

// javaClassName matches what Jackson writes as a type id: a fully qualified
// Java class name (at least one package), or an array class ("[Lpkg.C;").
var javaClassName = regexp.MustCompile(`^(\[+L)?[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)+;?$`)

// Guess names the Redisson codec that most likely wrote data, from the
// shapes the codecs write, for tools that show a value whose codec they do
// not know (redisson inspect):
//
//	GuessJSON     JSON starting with {"@class" or with a ["<Java class>", value]
//	              wrapper (Jackson's default typing), that JsonJackson decodes
//	GuessMsgPack  MessagePack whose top value is a map with an "@class" key or a
//	              [<Java class>, value] pair, that MsgPackJackson decodes; or
//	              one MessagePack string of valid UTF-8 or one float64 (a
//	              String or a Double, which MsgPackJackson writes without type
//	              information)
//	GuessString   any other valid UTF-8 text (no control characters but tab,
//	              newline and carriage return): StringCodec, LongCodec's digits,
//	              and also JSON without type information (TypedJsonJackson, or
//	              JsonJackson's String, Integer and Boolean, which it writes plain)
//	GuessBytes    anything else: ByteArrayCodec, or a Java-only codec such as
//	              Kryo5Codec (Redisson's default since 3.19), which Go cannot read
//
// It is a guess: the codec that wrote the bytes is not stored with them.
// When it returns GuessJSON or GuessMsgPack, that codec (with or without a
// Types registry) decodes data into an any; with GuessString, data is valid
// UTF-8.
// Types registered in a registry do not change the guess.
func Guess(data []byte) string {
	if len(data) > 0 && (data[0] == '{' || data[0] == '[') {
		if n, err := (jsonFormat{}).parse(data); err == nil && typedTop(&n, true) && decodes(JsonJackson(nil), data) {
			return GuessJSON
		}
	}
	if len(data) > 0 && msgpackContainer(data[0]) {
		if n, err := (msgpackFormat{}).parse(data); err == nil && typedTop(&n, false) && decodes(MsgPackJackson(nil), data) {
			return GuessMsgPack
		}
	}
	if len(data) == 9 && data[0] == msgpcode.Double {
		return GuessMsgPack // a Double, which Jackson writes plain
	}
	if len(data) > 0 && msgpackString(data[0]) {
		if n, err := (msgpackFormat{}).parse(data); err == nil && n.kind == kString &&
			len(n.s) <= len(data) && string(data[len(data)-len(n.s):]) == n.s {
			return GuessMsgPack
		}
	}
	if isText(data) {
		return GuessString
	}
	return GuessBytes
}

// isText reports whether data is valid UTF-8 without control characters
// other than tab, newline and carriage return.
func isText(data []byte) bool {
	if !utf8.Valid(data) {
		return false
	}
	for _, r := range string(data) {
		if unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' {
			return false
		}
	}
	return true
}

// typedTop reports whether n is what Jackson's default typing writes at the
// top: an object with an "@class" property (the first one in JSON, where
// Jackson writes it first), or a ["<class>", value] wrapper.
func typedTop(n *node, first bool) bool {
	switch n.kind {
	case kObject:
		if first {
			return len(n.obj) > 0 && n.obj[0].key == classKey && n.obj[0].val.kind == kString
		}
		_, ok := n.classProperty()
		return ok
	case kArray:
		class, _, ok := n.asWrapper()
		return ok && javaClassName.MatchString(class)
	}
	return false
}

// msgpackString reports whether c starts a MessagePack string, which is
// never valid UTF-8 text on its own.
func msgpackString(c byte) bool {
	return msgpcode.IsFixedString(c) || c == msgpcode.Str8 || c == msgpcode.Str16 || c == msgpcode.Str32
}

// msgpackContainer reports whether c starts a MessagePack map or array.
func msgpackContainer(c byte) bool {
	return msgpcode.IsFixedMap(c) || msgpcode.IsFixedArray(c) ||
		c == msgpcode.Map16 || c == msgpcode.Map32 || c == msgpcode.Array16 || c == msgpcode.Array32
}

func decodes(c Codec, data []byte) bool {
	var v any
	return c.Decode(data, &v) == nil
}
