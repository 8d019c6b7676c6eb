// Package slot computes Redis Cluster hash slots.
package slot

import "strings"

// Count is the number of Redis Cluster hash slots.
const Count = 16384

// Of returns the Redis Cluster hash slot of key: CRC16 (XMODEM) of the hash
// tag (first '{', first '}' after it, non-empty content) or of the whole key.
func Of(key string) int {
	return int(crc16(Tag(key)) % Count)
}

// Tag returns the part of key Redis Cluster hashes: the content of its hash
// tag (from the first '{' to the first '}' after it, when that is not
// empty), else the whole key. Two keys with the same Tag share a slot
// whatever else they contain.
func Tag(key string) string {
	if s := strings.IndexByte(key, '{'); s >= 0 {
		if e := strings.IndexByte(key[s+1:], '}'); e > 0 {
			return key[s+1 : s+1+e]
		}
	}
	return key
}

func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for b := 0; b < 8; b++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}
