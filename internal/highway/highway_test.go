package highway

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSum128AppendixA1 checks Hash128 and Sum128 against the vectors of
// protocol Appendix A.1, computed with Redisson's own HighwayHash.java.
func TestSum128AppendixA1(t *testing.T) {
	for _, tc := range []struct{ value, hash, id string }{
		{"", "b7aad9c226c6a36bb2d4e4a63557bca6", "t6rZwibGo2uy1OSmNVe8pg"},
		{"Jack_001", "ee93680dd8b3572db163bf7631a16ffb", "7pNoDdizVy2xY792MaFv+w"},
		{"Mary_002", "9085f60c5397e0859cb7b1bb2bab55f4", "kIX2DFOX4IWct7G7K6tV9A"},
		{"0123456789abcdef0123456789abcdef-and-more", "6b7e5a15a37bee266712c27536a8cb98", "a35aFaN77iZnEsJ1NqjLmA"},
	} {
		t.Run(fmt.Sprintf("%q", tc.value), func(t *testing.T) {
			h := Hash128(RedissonKey, []byte(tc.value))
			require.Equal(t, tc.hash, fmt.Sprintf("%016x%016x", h[0], h[1]))
			sum := Sum128([]byte(tc.value))
			require.Equal(t, tc.hash, hex.EncodeToString(sum[:]))
			require.Equal(t, tc.id, base64.RawStdEncoding.EncodeToString(sum[:]))
		})
	}
}

// TestHighwayHash64Reference checks the core (packets, every remainder
// length, the permute rounds) against the reference implementation's
// 64-bit test vectors: key bytes 0..31, input bytes 0..n-1 for n = 0..40.
func TestHighwayHash64Reference(t *testing.T) {
	want := []uint64{
		0x907A56DE22C26E53, 0x7EAB43AAC7CDDD78, 0xB8D0569AB0B53D62, 0x5C6BEFAB8A463D80,
		0xF205A46893007EDA, 0x2B8A1668E4A94541, 0xBD4CCC325BEFCA6F, 0x4D02AE1738F59482,
		0xE1205108E55F3171, 0x32D2644EC77A1584, 0xF6E10ACDB103A90B, 0xC3BBF4615B415C15,
		0x243CC2040063FA9C, 0xA89A58CE65E641FF, 0x24B031A348455A23, 0x40793F86A449F33B,
		0xCFAB3489F97EB832, 0x19FE67D2C8C5C0E2, 0x04DD90A69C565CC2, 0x75D9518E2371C504,
		0x38AD9B1141D3DD16, 0x0264432CCD8A70E0, 0xA9DB5A6288683390, 0xD7B05492003F028C,
		0x205F615AEA59E51E, 0xEEE0C89621052884, 0x1BFC1A93A7284F4F, 0x512175B5B70DA91D,
		0xF71F8976A0A2C639, 0xAE093FEF1F84E3E7, 0x22CA92B01161860F, 0x9FC7007CCF035A68,
		0xA0C964D9ECD580FC, 0x2C90F73CA03181FC, 0x185CF84E5691EB9E, 0x4FC1F5EF2752AA9B,
		0xF5B7391A5E0A33EB, 0xB9B84B83B4E96C9C, 0x5E42FE712A5CD9B4, 0xA150F2F90C3F97DC,
		0x7FA522D75E2D637D,
	}
	key := [4]uint64{0x0706050403020100, 0x0F0E0D0C0B0A0908, 0x1716151413121110, 0x1F1E1D1C1B1A1918}
	for n, w := range want {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i)
		}
		s := newHighway(key)
		for len(data) >= 32 {
			s.updatePacket(data[:32])
			data = data[32:]
		}
		if len(data) > 0 {
			s.updateRemainder(data)
		}
		for range 4 {
			s.permuteAndUpdate()
		}
		require.Equal(t, w, s.v0[0]+s.v1[0]+s.mul0[0]+s.mul1[0], "length %d", n)
	}
}
