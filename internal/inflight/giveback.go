package inflight

import (
	"context"
	"time"
)

// GiveBack sends what was taken for a caller who will not have it (permits,
// an element popped as its caller left) with send, on a context from
// ForUndo, and returns the outcome of that first try. When Redis refused
// it (Config.Refused: out of memory, an ACL, a failover under way), nothing
// is lost yet: pending is true, and it is sent again in the background, with
// a pause growing to a second, until Redis accepts it or answers otherwise;
// then end gets that outcome (nil: given back). The retries are registered
// with the tracker, so Close waits for them; once Close has begun they try
// one last time. Nothing is sent once Close has returned (Config.Closed).
func (t *Tracker) GiveBack(ctx context.Context, send func(context.Context) error, end func(error)) (err error, pending bool) {
	bg := context.WithoutCancel(ctx)
	try := func() error {
		if t.stop.Err() != nil {
			return t.cfg.Closed
		}
		dctx, cancel := t.ForUndo(bg)
		defer cancel()
		return send(dctx)
	}
	err = try()
	if !t.cfg.Refused(err) || t.cfg.Lifetime.Err() != nil {
		return err, false
	}
	w, berr := t.Begin()
	if berr != nil {
		return err, false
	}
	go func() {
		defer w.End()
		pause := giveBackFirstPause
		timer := time.NewTimer(pause)
		defer timer.Stop()
		for {
			last := false
			select {
			case <-timer.C:
			case <-t.cfg.Lifetime.Done():
				last = true
			}
			err := try()
			if !t.cfg.Refused(err) || last {
				end(err)
				return
			}
			pause = min(2*pause, giveBackMaxPause)
			timer.Reset(pause)
		}
	}()
	return err, true
}

// The pauses between GiveBack's tries: a failover's refusals pass within
// moments, while memory or an ACL may take an operator; a second keeps a
// long refusal down to a command a second per give-back.
const (
	giveBackFirstPause = 50 * time.Millisecond
	giveBackMaxPause   = time.Second
)
