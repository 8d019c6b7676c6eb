package multilock

// stackReserve is how much stack a goroutine that calls a member (a try, a
// release) reserves before the call. A new goroutine starts with a small
// stack, and a member call through the engine and go-redis grows it several
// times, each time copying the stack and adjusting every frame on it: a
// tenth of a RedLock's CPU was spent so (measured, 5 servers). Reserving
// first grows it once, while it holds a single frame.
const stackReserve = 8 << 10

// reserveStack grows the calling goroutine's stack by stackReserve. i is
// any value: it only keeps the frame from being optimized away.
//
//go:noinline
func reserveStack(i int) byte {
	var frame [stackReserve]byte
	frame[i&(stackReserve-1)] = byte(i)
	return frame[(i+1)&(stackReserve-1)]
}
