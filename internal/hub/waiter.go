package hub

// Waiter is one goroutine's registration on a channel. Its C is signalled
// when a message (or a reconnect) says the waited-for state may have changed.
type Waiter struct {
	h          *Hub
	e          *entry
	prev, next *Waiter
	sig        chan struct{}
	gone       bool
	passOver   func() bool
	passGroup  any
}

// C is signalled when the waiter should re-check what it waits for.
func (w *Waiter) C() <-chan struct{} { return w.sig }

// Err returns why the waiter's subscription ended while it waited, nil
// while it stands: Redis refused the channel when the hub subscribed it
// again after a reconnect (an ACL changed meanwhile). The waiter is woken
// then; no message will reach it any more.
func (w *Waiter) Err() error {
	// Lock-free: a waiter asks after every failed try.
	if p := w.e.ended.Load(); p != nil {
		return *p
	}
	return nil
}

// PassOverWhen makes messages that wake a limited number of waiters skip
// this one while skip reports true: its owner knows the message cannot
// concern it and that something local will wake it instead (a lock held by
// another goroutine of the same client). Waking it would cost a goroutine
// switch for nothing. Waiters that pass the same group (a comparable value,
// e.g. a pointer) share the answer: skip is asked once per message for the
// group, however many of them wait.
// Messages that wake every waiter, and the wake-ups after a reconnect, still
// reach it. skip runs with the hub's lock held and must not call the hub.
func (w *Waiter) PassOverWhen(group any, skip func() bool) {
	w.h.mu.Lock()
	w.passOver, w.passGroup = skip, group
	w.h.mu.Unlock()
}

// Close unregisters the waiter. acquired tells whether the waiter got what it
// waited for; if it did not, a wake-up it had not consumed passes to the next
// waiter, so a cancelled waiter never swallows a release.
func (w *Waiter) Close(acquired bool) {
	h := w.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if w.gone {
		return
	}
	w.gone = true
	e := w.e
	e.remove(w)
	h.noteWaiters()
	pending := len(w.sig) > 0
	if pending && !acquired && e.n > 0 {
		e.wake(1)
	}
	h.dropIfUnused(e)
}

// dropIfUnused unsubscribes e's subscription when nobody needs it any more;
// called with h.mu held.
func (h *Hub) dropIfUnused(e *entry) {
	if e.unused() && h.entries[e.key] == e {
		delete(h.entries, e.key)
		if !h.closed {
			e.c.unsubs[e.key]++
			e.c.enqueue(op{subscribe: false, key: e.key})
		}
	}
}

// Listener is one topic subscription's registration (Listen).
type Listener struct {
	h    *Hub
	e    *entry
	sink Sink
	gone bool // guarded by h.mu
}

// Close unregisters the listener; the Redis subscription goes when nobody
// else needs it. The sink gets nothing after Close returns.
func (l *Listener) Close() {
	h := l.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if l.gone {
		return
	}
	l.gone = true
	e := l.e
	for i, x := range e.listeners {
		if x == l {
			e.listeners = append(e.listeners[:i:i], e.listeners[i+1:]...)
			break
		}
	}
	h.dropIfUnused(e)
}

func (e *entry) push(w *Waiter) {
	w.prev = e.tail
	if e.tail != nil {
		e.tail.next = w
	} else {
		e.head = w
	}
	e.tail = w
	e.n++
}

func (e *entry) remove(w *Waiter) {
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		e.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		e.tail = w.prev
	}
	w.prev, w.next = nil, nil
	e.n--
}

// wake signals up to n waiters that have no wake-up pending, oldest first;
// n == All signals every waiter.
func (e *entry) wake(n int) {
	e.wakeSome(n, false)
}

// wakeSome is wake that, for a limited n and with passOver set, skips the
// waiters that ask to be passed over.
func (e *entry) wakeSome(n int, passOver bool) {
	// Answers of the groups asked during this message; a channel's
	// waiters usually all belong to one.
	var asked [4]struct {
		group any
		skip  bool
	}
	nAsked := 0
	skip := func(w *Waiter) bool {
		for i := range nAsked {
			if asked[i].group == w.passGroup {
				return asked[i].skip
			}
		}
		v := w.passOver()
		if nAsked < len(asked) {
			asked[nAsked].group, asked[nAsked].skip = w.passGroup, v
			nAsked++
		}
		return v
	}
	for w := e.head; w != nil && (n == All || n > 0); w = w.next {
		if passOver && n != All && w.passOver != nil && skip(w) {
			continue
		}
		select {
		case w.sig <- struct{}{}:
			if n != All {
				n--
			}
		default:
		}
	}
}
