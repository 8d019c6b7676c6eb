// Package replies tells what a Redis error reply says about the command
// it answers: whether Redis turned it away before it changed anything
// (Refused), and whether an ACL did (Denied, ChannelDenied).
package replies

import (
	"errors"
	"strings"

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
//   - No reply: the outcome is unknown (core.Transport).
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
// other reply and a failure to get a reply (core.Transport) report false.
func Refused(err error) bool {
	msg, ok := Text(err)
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
	msg, ok := Text(err)
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
	msg, ok := Text(err)
	return ok && !Refused(err) && Denied(err) && strings.Contains(msg, "channel")
}

// Text returns the text of the Redis error reply in err, and whether err
// holds one (redis.Nil does not).
func Text(err error) (string, bool) {
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
