package localq

import "time"

// yield is how the goroutines of one client give way when a hand-off streak
// ends with a real release while local waiters were parked: the releaser
// looping back to Lock, and newcomers, would otherwise beat every waiter
// elsewhere, which has to hear the release message first, and the lock would
// stay in this process. Its methods run with Queue.mu held.
//
// With nobody else known to listen, local goroutines yield until the
// message reaches one of them, or until a window passes, should it be lost.
// When the release message reached other clients (HeardScripts), local
// goroutines stand back instead for as many releases of others as clients
// heard it: not on their own release's message, only once that many
// messages of others came, so clients take turns. Should the lock stay free
// meanwhile (a listener that does not wait, a lost message), a probe timer
// lets the oldest local waiter try.
type yield struct {
	until time.Time // yield until then, or until a message: no stand-back
	// standing: a stand-back runs, for goal messages of other clients, of
	// which seen came.
	standing   bool
	goal, seen int
	// ownHeard: during a stand-back, a local waiter has had the message
	// of the release that began it. earlyHeard: a message reached a local
	// waiter while a release of ours was in flight (it may be that
	// release's, ahead of its reply).
	ownHeard, earlyHeard bool
	probe                bool        // the probe timer fired: the oldest tries once
	probeTimer           *time.Timer // armed during a stand-back
}

// StandBackFor is how long the lock may stay free after a release message
// during a stand-back before a local waiter tries anyway: time for a waiter
// elsewhere to hear the message and send its try.
const StandBackFor = 2 * time.Millisecond

// yieldWindow bounds how long local goroutines give way after a streak
// ends, in case the release message is lost; during a stand-back it is
// how long after a failed try the probe timer fires again.
const yieldWindow = 50 * time.Millisecond

// yielding reports whether local goroutines give way now.
func (y *yield) yielding(now time.Time) bool {
	return y.standing || !y.until.IsZero() && now.Before(y.until)
}

// yieldFor starts giving way until now + yieldWindow or a message.
func (y *yield) yieldFor(now time.Time) { y.until = now.Add(yieldWindow) }

// standBack starts a stand-back for others releases of other clients; the
// probe timer, armed with fire, fires after probeAfter unless a message
// comes first.
func (y *yield) standBack(others int, probeAfter time.Duration, fire func()) {
	y.standing, y.goal, y.seen, y.probe = true, others, 0, false
	y.ownHeard, y.earlyHeard = y.earlyHeard, false
	y.armProbe(probeAfter, fire)
}

// end ends a stand-back.
func (y *yield) end() {
	y.standing, y.probe = false, false
	if y.probeTimer != nil {
		y.probeTimer.Stop()
	}
}

// armProbe makes fire run in d, which lets the oldest parked waiter try
// unless the stand-back ends first.
func (y *yield) armProbe(d time.Duration, fire func()) {
	if y.probeTimer != nil {
		y.probeTimer.Reset(d)
		return
	}
	y.probeTimer = time.AfterFunc(d, fire)
}

// fired records the probe timer's firing; it reports whether a stand-back
// still runs, so that the oldest waiter is to be woken.
func (y *yield) fired() bool {
	if !y.standing {
		return false
	}
	y.probe = true
	return true
}

// standingBack decides, during a stand-back, whether a waiter that woke
// (heard: by a message) stands back still.
func (y *yield) standingBack(heard bool, probeAfter time.Duration, fire func()) bool {
	switch {
	case heard && !y.ownHeard:
		y.ownHeard = true // our own release's
		return true
	case heard:
		y.seen++
		if y.seen >= y.goal {
			y.end()
			return false
		}
		y.armProbe(probeAfter, fire)
		return true
	case y.probe:
		y.probe = false
		return false
	}
	return true
}
