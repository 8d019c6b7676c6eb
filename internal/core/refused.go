package core

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// A release (an unlock, a permit given back, a count-down, an element put
// back) that fails leaves its caller with one of three outcomes, and each
// asks for something else:
//
//   - Redis refused it: the reply is an error that Redis gives before the
//     command or script changed anything. The hold or permit is still the
//     caller's, and the same release may be sent again once Redis accepts it.
//   - Redis ran it and it failed partway: a script's runtime error after a
//     write (a PUBLISH refused by an ACL at the end of a release). The
//     release happened; sending it again could release twice.
//   - No reply: the outcome is unknown (Transport).
//
// Refused tells the first apart from the other two.

// refusedAlways reports the error codes that mean nothing was written even
// when a script meets them partway: Redis checks them at a script's every
// write and refuses only the first one (OOM once the script wrote is let
// through; a replica, a failed disk or missing replicas refuse every write
// alike).
func refusedAlways(code string) bool {
	switch code {
	case "OOM", "READONLY", "MISCONF", "NOREPLICAS":
		return true
	}
	return false
}

// refusedBefore reports the error codes Redis answers before a command or
// a script runs: key or command ACLs checked against the declared keys,
// keys in different slots, a slot elsewhere or unserved, a server still
// loading or busy with a script, a missing script, a closed transaction, a
// connection not authenticated, a blocking command ended by a role change.
// A script's own runtime error never starts with these: Redis words those
// "ERR ... script: ..." (an ACL check inside a script: "ERR The user
// executing the script can't ..." on 7.0, "ERR ACL failure in script: ..."
// on 7.2+).
func refusedBefore(code string) bool {
	switch code {
	case "NOPERM", "CROSSSLOT", "MOVED", "ASK", "CLUSTERDOWN", "TRYAGAIN",
		"LOADING", "MASTERDOWN", "BUSY", "NOSCRIPT", "EXECABORT", "NOAUTH", "UNBLOCKED":
		return true
	}
	return false
}

// Refused reports whether err is an error reply by which Redis turned a
// command or a script away before it changed anything (OOM, NOPERM,
// READONLY, CROSSSLOT, NOSCRIPT, LOADING, MASTERDOWN, CLUSTERDOWN, TRYAGAIN,
// BUSY, MISCONF, NOREPLICAS, ...): the caller's hold or permit stays its
// own, and sending the same command again once Redis accepts it is safe.
// A script's runtime error (it may have written before it failed), any
// other reply and a failure to get a reply (Transport) report false.
func Refused(err error) bool {
	msg, ok := replyText(err)
	if !ok {
		return false
	}
	code, _, _ := strings.Cut(msg, " ")
	if refusedAlways(code) {
		return true
	}
	if c, ok := oldScriptError(msg); ok {
		// Redis 6 wraps a write refused inside a script in ERR Error
		// running script ... -OOM ...; only the always-refused codes say
		// nothing was written there.
		return refusedAlways(c)
	}
	if strings.Contains(msg, " script: ") || strings.Contains(msg, "in script") {
		// Raised by redis.call inside a running script: it may have
		// written before.
		return false
	}
	return refusedBefore(code)
}

// Denied reports whether err is Redis refusing the ACL user of the
// connection a key, a channel or a command: NOPERM before a command runs,
// or an ACL check failing inside a running script.
func Denied(err error) bool {
	msg, ok := replyText(err)
	if !ok {
		return false
	}
	return strings.HasPrefix(msg, "NOPERM ") ||
		strings.HasPrefix(msg, "ERR ") && (strings.Contains(msg, "ACL failure in script") ||
			strings.Contains(msg, "The user executing the script can't"))
}

// ChannelDenied reports whether err is a running script's PUBLISH (or
// SPUBLISH) refused by the ACL: the channel was not allowed. A release
// script publishes last, so its write was made.
func ChannelDenied(err error) bool {
	msg, ok := replyText(err)
	return ok && !Refused(err) && Denied(err) && strings.Contains(msg, "channel")
}

// Permission returns err matching ErrNoPermission when Denied says it is
// an ACL refusal, its text unchanged; any other err as it is.
func Permission(err error) error {
	if err == nil || errors.Is(err, ErrNoPermission) || !Denied(err) {
		return err
	}
	return Errorf(ErrNoPermission, "%w", err)
}

// replyText returns the text of the Redis error reply in err.
func replyText(err error) (string, bool) {
	var re redis.Error
	if err == nil || !errors.As(err, &re) || errors.Is(err, redis.Nil) {
		return "", false
	}
	return re.Error(), true
}

// oldScriptError returns the code of a command refused inside a script as
// Redis 6 reports it: "ERR Error running script (call to f_<sha>):
// @user_script:1: @user_script: 1: -OOM command not allowed ...".
func oldScriptError(msg string) (string, bool) {
	if !strings.HasPrefix(msg, "ERR Error running script") {
		return "", false
	}
	i := strings.LastIndex(msg, ": -")
	if i < 0 {
		return "", true
	}
	code, _, _ := strings.Cut(msg[i+3:], " ")
	return code, true
}

// GiveBack sends what was taken for a caller who will not have it (permits,
// an element popped as its caller left) with send, on a context from
// ForUndo, and returns the outcome of that first try. When Redis refused
// it (Refused: out of memory, an ACL, a failover under way), nothing is
// lost yet: pending is true, and it is sent again in the background, with a
// pause growing to a second, until Redis accepts it or answers otherwise;
// then end gets that outcome (nil: given back). The retries are registered
// with the runtime, so Close waits for them; once Close has begun they try
// one last time. Nothing is sent once Close has returned (ErrClosed).
func (rt *Runtime) GiveBack(ctx context.Context, send func(context.Context) error, end func(error)) (err error, pending bool) {
	bg := context.WithoutCancel(ctx)
	try := func() error {
		if rt.Drained().Err() != nil {
			return ErrClosed
		}
		dctx, cancel := rt.ForUndo(bg)
		defer cancel()
		return send(dctx)
	}
	err = try()
	if !Refused(err) || rt.done.Err() != nil {
		return err, false
	}
	w, berr := rt.Inflight()
	if berr != nil {
		return err, false
	}
	go func() {
		defer w.End()
		pause := giveBackFirstPause
		t := time.NewTimer(pause)
		defer t.Stop()
		for {
			last := false
			select {
			case <-t.C:
			case <-rt.done.Done():
				last = true
			}
			err := try()
			if !Refused(err) || last {
				end(err)
				return
			}
			pause = min(2*pause, giveBackMaxPause)
			t.Reset(pause)
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
