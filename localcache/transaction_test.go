package localcache_test

import (
	"encoding/binary"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/redistest"
	"github.com/goredisson/redisson/localcache"
)

// disableMsg is Redisson 4.x's LocalCachedMapDisable: 0x03, the request
// id, the timeout (ms), the whole-cache flag, the key hashes.
func disableMsg(req string, timeoutMS uint64, all bool, hashes ...[]byte) string {
	b := append([]byte{0x03, byte(len(req))}, req...)
	b = binary.BigEndian.AppendUint64(b, timeoutMS)
	if all {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(hashes)))
	for _, h := range hashes {
		b = append(b, h...)
	}
	return string(b)
}

func enableMsg(req string, hashes ...[]byte) string {
	b := append([]byte{0x05, byte(len(req))}, req...)
	b = append(b, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(len(hashes)))
	for _, h := range hashes {
		b = append(b, h...)
	}
	return string(b)
}

// A Java transaction's disable: the key leaves the near cache, is not
// cached again until the enable, and the instance acknowledges on
// {NAME}:<request id>:topic as Redisson's does (else the transaction
// waits out its timeout).
func TestTransactionDisableAndEnable(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	m := newMap(t, e.c1, "tx", localcache.Options{})
	require.NoError(t, e.raw.HSet(ctx, "tx", "k1", "v1").Err())
	_, _, err := m.Get(ctx, "k1")
	require.NoError(t, err)
	require.Equal(t, 1, m.CachedSize())

	pub := redistest.Capture(t, e.raw)
	hash, _ := hex.DecodeString(k1Hash)
	require.NoError(t, e.raw.Publish(ctx, "{tx}:topic", disableMsg("req1", 60_000, false, hash)).Err())
	_, _ = pub.Next(t) // the disable itself
	ch, payload := pub.Next(t)
	require.Equal(t, "{tx}:req1:topic", ch)
	require.Equal(t, "\x04", payload)
	require.Zero(t, m.CachedSize())

	_, _, err = m.Get(ctx, "k1")
	require.NoError(t, err)
	require.Zero(t, m.CachedSize(), "a disabled key is not cached")

	require.NoError(t, e.raw.Publish(ctx, "{tx}:topic", enableMsg("req1", hash)).Err())
	_, _ = pub.Next(t)
	redistest.Eventually(t, within, "cached again after the enable", func() bool {
		_, _, err := m.Get(ctx, "k1")
		return err == nil && m.CachedSize() == 1
	})
}

// A Java clearLocalCache asks every receiver to release one permit of its
// semaphore NAME:clear:<request id hex>: a Go instance does.
func TestClearReleasesJavaSemaphore(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	m := newMap(t, e.c1, "clr", localcache.Options{})
	require.NoError(t, m.Start(ctx))
	request := "0123456789abcdef"
	sem := "clr:clear:" + hex.EncodeToString([]byte(request))
	require.NoError(t, e.raw.Set(ctx, sem, 0, 0).Err())
	other := make([]byte, 16)
	msg := append([]byte{0x00}, other...)
	msg = append(append(msg, request...), 1)
	require.NoError(t, e.raw.Publish(ctx, "{clr}:topic", string(msg)).Err())
	redistest.Eventually(t, within, "one permit released", func() bool { return e.raw.Get(ctx, sem).Val() == "1" })
}
