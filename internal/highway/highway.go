// Package highway is HighwayHash-128 under Redisson's key, the hash
// Redisson's misc.Hash computes: the group multi-lock names its values by
// it (package keys) and the local cached map names its keys by it in the
// invalidation messages (package localcache).
package highway

import (
	"encoding/binary"
	"math/bits"
)

// HighwayHash (Alakuijala, Cox, Wassenberg, "Fast keyed hash/pseudo-random
// function using SIMD multiply and permute", 2016), the portable 64-bit-lane
// formulation, written from the published algorithm: four lanes of 64 bits
// in two state vectors v0, v1 and two multiplier vectors, updated per
// 32-byte packet, a padded final packet, and six permute rounds before the
// 128-bit output is read (docs/protocol.md §11.3, Appendix A.1).

// RedissonKey is the HighwayHash key of Redisson's misc.Hash.
var RedissonKey = [4]uint64{0x9e3779b97f4a7c15, 0xf39cc0605cedc834, 0x1082276bf3a27251, 0xf86c6a11d0c18e95}

// hhInit0 and hhInit1 are the algorithm's initial constants.
var (
	hhInit0 = [4]uint64{0xdbe6d5d5fe4cce2f, 0xa4093822299f31d0, 0x13198a2e03707344, 0x243f6a8885a308d3}
	hhInit1 = [4]uint64{0x3bd39e10cb0ef593, 0xc0acf169b5f18a8c, 0xbe5466cf34e90c6c, 0x452821e638d01377}
)

type highway struct {
	v0, v1, mul0, mul1 [4]uint64
}

func newHighway(key [4]uint64) *highway {
	s := &highway{mul0: hhInit0, mul1: hhInit1}
	for i := range 4 {
		s.v0[i] = hhInit0[i] ^ key[i]
		s.v1[i] = hhInit1[i] ^ bits.RotateLeft64(key[i], 32)
	}
	return s
}

// zipperMerge adds to add1, add0 the bytes of the 128-bit value (v1, v0)
// shuffled so that each multiplication result's well-mixed bytes reach the
// places the next multiplication reads.
func zipperMerge(v1, v0 uint64, add1, add0 *uint64) {
	*add0 += (((v0 & 0xff000000) | (v1 & 0xff00000000)) >> 24) |
		(((v0 & 0xff0000000000) | (v1 & 0xff000000000000)) >> 16) |
		(v0 & 0xff0000) | ((v0 & 0xff00) << 32) |
		((v1 & 0xff00000000000000) >> 8) | (v0 << 56)
	*add1 += (((v1 & 0xff000000) | (v0 & 0xff00000000)) >> 24) |
		(v1 & 0xff0000) | ((v1 & 0xff0000000000) >> 16) |
		((v1 & 0xff00) << 24) | ((v0 & 0xff000000000000) >> 8) |
		((v1 & 0xff) << 48) | (v0 & 0xff00000000000000)
}

func (s *highway) update(lanes [4]uint64) {
	for i := range 4 {
		s.v1[i] += s.mul0[i] + lanes[i]
		s.mul0[i] ^= (s.v1[i] & 0xffffffff) * (s.v0[i] >> 32)
		s.v0[i] += s.mul1[i]
		s.mul1[i] ^= (s.v0[i] & 0xffffffff) * (s.v1[i] >> 32)
	}
	zipperMerge(s.v1[1], s.v1[0], &s.v0[1], &s.v0[0])
	zipperMerge(s.v1[3], s.v1[2], &s.v0[3], &s.v0[2])
	zipperMerge(s.v0[1], s.v0[0], &s.v1[1], &s.v1[0])
	zipperMerge(s.v0[3], s.v0[2], &s.v1[3], &s.v1[2])
}

func (s *highway) updatePacket(p []byte) {
	var lanes [4]uint64
	for i := range 4 {
		lanes[i] = binary.LittleEndian.Uint64(p[8*i:])
	}
	s.update(lanes)
}

// updateRemainder hashes the final 1..31 bytes.
func (s *highway) updateRemainder(tail []byte) {
	n := len(tail)
	mod4 := n & 3
	whole := n &^ 3
	for i := range 4 {
		s.v0[i] += uint64(n)<<32 + uint64(n)
		lo := bits.RotateLeft32(uint32(s.v1[i]), n)
		hi := bits.RotateLeft32(uint32(s.v1[i]>>32), n)
		s.v1[i] = uint64(lo) | uint64(hi)<<32
	}
	var packet [32]byte
	copy(packet[:], tail[:whole])
	rest := tail[whole:]
	if n&16 != 0 {
		// The last four bytes of the input, overlapping what was copied.
		for i := range 4 {
			packet[28+i] = tail[whole+i+mod4-4]
		}
	} else if mod4 != 0 {
		packet[16] = rest[0]
		packet[17] = rest[mod4>>1]
		packet[18] = rest[mod4-1]
	}
	s.updatePacket(packet[:])
}

func (s *highway) permuteAndUpdate() {
	s.update([4]uint64{
		bits.RotateLeft64(s.v0[2], 32),
		bits.RotateLeft64(s.v0[3], 32),
		bits.RotateLeft64(s.v0[0], 32),
		bits.RotateLeft64(s.v0[1], 32),
	})
}

// highwayHash128 returns the 128-bit HighwayHash of data under key as its
// two 64-bit words, first word first.
func highwayHash128(key [4]uint64, data []byte) [2]uint64 {
	s := newHighway(key)
	for len(data) >= 32 {
		s.updatePacket(data[:32])
		data = data[32:]
	}
	if len(data) > 0 {
		s.updateRemainder(data)
	}
	for range 6 { // 4 rounds for the 64-bit output, 6 for 128, 10 for 256
		s.permuteAndUpdate()
	}
	return [2]uint64{
		s.v0[0] + s.mul0[0] + s.v1[2] + s.mul1[2],
		s.v0[1] + s.mul0[1] + s.v1[3] + s.mul1[3],
	}
}

// Hash128 returns the 128-bit HighwayHash of data under key as its two
// 64-bit words, first word first (Redisson's Hash.hash128).
func Hash128(key [4]uint64, data []byte) [2]uint64 { return highwayHash128(key, data) }

// Sum128 returns Redisson's Hash.hash128toArray of data: Hash128 under
// RedissonKey, each word big-endian, the first word first.
func Sum128(data []byte) [16]byte {
	h := highwayHash128(RedissonKey, data)
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], h[0])
	binary.BigEndian.PutUint64(b[8:], h[1])
	return b
}
