package keys

import (
	"encoding/base64"

	"github.com/goredisson/redisson/internal/highway"
)

// GroupMultiLockField is the hash field that names a value in a group
// multi-lock's hash (Redisson's RedissonFasterMultiLock): Base64 (standard
// alphabet, padding dropped) of the 128-bit HighwayHash of the value's
// codec bytes under Redisson's key, the first word first and each word
// big-endian (Redisson's Hash.hash128toBase64). For a Java peer configured
// with StringCodec the bytes are the string's UTF-8 bytes; the owner's
// fields are this + ":" + "<client id>:<owner id>" (and ":expire_time").
func GroupMultiLockField(encoded []byte) string {
	sum := highway.Sum128(encoded)
	return base64.RawStdEncoding.EncodeToString(sum[:])
}
