package conns

// stackReserve is how much stack a goroutine that makes one Redis call
// (Settle's, Bounded's, a RedLock member's) reserves before the call. A new
// goroutine starts with a small stack, and a call through go-redis grows it
// several times, each time copying the stack and adjusting every frame on
// it, a visible share of the CPU of objects whose calls take such a
// goroutine (docs/performance.md). Reserving first grows it once, while it
// holds a single frame.
const stackReserve = 8 << 10

// ReserveStack grows the calling goroutine's stack by stackReserve. i is
// any value: it only keeps the frame from being optimized away.
//
//go:noinline
func ReserveStack(i int) byte {
	var frame [stackReserve]byte
	frame[i&(stackReserve-1)] = byte(i)
	return frame[(i+1)&(stackReserve-1)]
}
