package codec

import "strings"

// node is one value of Jackson's data model, shared by the JSON and the
// MessagePack formats: the encoder builds a tree with the type information
// in place, a format writes it; a format parses bytes into a tree, the
// decoder reads the type information out of it.
type node struct {
	kind kind
	b    bool
	i    int64
	u    uint64 // kUint: an integer above math.MaxInt64
	f    float64
	f32  bool   // kFloat written as a 32-bit float
	lit  string // kFloat parsed from JSON or given by a json.Marshaler: its digits as written
	s    string // kString; kBigInt and kDecimal: the number in plain decimal notation
	bin  []byte
	arr  []node
	obj  []member
}

type member struct {
	key string
	val node
}

type kind uint8

const (
	kNull kind = iota
	kBool
	kInt
	kUint
	kFloat
	kBigInt  // an integer beyond 64 bits (Java BigInteger)
	kDecimal // a decimal number written with all its digits (Java BigDecimal)
	kString
	kBytes
	kArray
	kObject
)

func (k kind) String() string {
	return [...]string{"null", "boolean", "integer", "integer", "number", "integer", "number", "string", "binary", "array", "object"}[k]
}

// article is the kind with its indefinite article, for messages.
func (k kind) article() string {
	if s := k.String(); strings.ContainsRune("aeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + k.String()
}

// maxDepth bounds the nesting of parsed and encoded values (Jackson's own
// default limit since 2.15); it also stops encoding a cyclic Go value.
const maxDepth = 1000

// format writes and parses one wire format.
type format interface {
	write(n *node) ([]byte, error)
	parse(data []byte) (node, error)
}

func wrapper(class string, v node) node {
	return node{kind: kArray, arr: []node{{kind: kString, s: class}, v}}
}

// asWrapper returns the class and value of a ["<class>", value] node.
func (n *node) asWrapper() (string, *node, bool) {
	if n.kind == kArray && len(n.arr) == 2 && n.arr[0].kind == kString {
		return n.arr[0].s, &n.arr[1], true
	}
	return "", nil, false
}

// classProperty returns the value of an object's "@class" property.
func (n *node) classProperty() (string, bool) {
	for i := range n.obj {
		if n.obj[i].key == classKey {
			if n.obj[i].val.kind == kString {
				return n.obj[i].val.s, true
			}
			return "", false
		}
	}
	return "", false
}

const classKey = "@class"
