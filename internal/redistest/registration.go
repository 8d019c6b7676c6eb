package redistest

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// RegistrationPrefix starts the key of every client's registration record
// (registry.KeyPrefix; registration_test.go checks they agree). redistest
// cannot import internal/registry: registry imports internal/core, whose
// in-package tests import redistest. internal/vectors skips the same keys.
//
// The record is this library's bookkeeping, written in the background by
// every client with registration on (the default), so tests that look at the
// whole keyspace or at every command sent leave it out; they keep it on,
// as users have it.
const RegistrationPrefix = "redisson-go:client:"

// IsRegistrationKey reports whether key is a client's registration record.
func IsRegistrationKey(key string) bool { return strings.HasPrefix(key, RegistrationPrefix) }

// Registration reports whether the command reads, writes or removes a
// client's registration record (SET, GET, PTTL, DEL of its key).
func (l MonitorLine) Registration() bool {
	return len(l.Args) > 0 && IsRegistrationKey(l.Args[0])
}

// Handshake reports whether l is part of opening a connection (HELLO, AUTH,
// SELECT, CLIENT SETINFO/SETNAME) or of taking one aside (a claim's ECHO)
// rather than a command of an object: the
// registration's background write may open a pooled connection inside a
// window where a test expects nothing of the object under test.
func (l MonitorLine) Handshake() bool {
	switch l.Command {
	case "hello", "auth", "select":
		return true
	case "echo":
		// A client learning which socket a dedicated connection runs on
		// (internal/core's binder.claim).
		return len(l.Args) == 1 && strings.HasPrefix(l.Args[0], "redisson-go-claim:")
	case "client":
		if len(l.Args) > 0 {
			switch strings.ToLower(l.Args[0]) {
			case "setinfo", "setname":
				return true
			}
		}
	}
	return false
}

// Keys returns the keys matching pattern (KEYS), sorted, leaving out the
// clients' registration records.
func Keys(t testing.TB, rdb redis.Cmdable, pattern string) []string {
	t.Helper()
	all, err := rdb.Keys(context.Background(), pattern).Result()
	if err != nil {
		t.Fatalf("KEYS %s: %v", pattern, err)
	}
	var out []string
	for _, k := range all {
		if !IsRegistrationKey(k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// DBSize returns the number of keys in the database (DBSIZE), leaving out
// the clients' registration records.
func DBSize(t testing.TB, rdb redis.Cmdable) int64 {
	t.Helper()
	return int64(len(Keys(t, rdb, "*")))
}

// Changes runs fn and returns how many changes to the data Redis counted
// while it ran (INFO persistence rdb_changes_since_last_save: any write, a
// PEXPIRE included, counts; a write that changes nothing does not), less
// the writes of clients' registration records, which clients make in the
// background whatever fn does. srv is rdb's server. A record deleted in the
// window (a client closed) fails the test: whether that DEL counted cannot
// be told, and a guess could hide one of fn's writes.
func Changes(t testing.TB, srv *Server, rdb *redis.Client, fn func()) int64 {
	t.Helper()
	m, err := StartMonitor(srv.Addr())
	if err != nil {
		t.Fatalf("MONITOR: %v", err)
	}
	defer m.Close()
	ctx := context.Background()
	stamp := strconv.FormatInt(time.Now().UnixNano(), 36)
	begin, end := "changes-begin-"+stamp, "changes-end-"+stamp
	// Each marker and its INFO run in one transaction, so that no other
	// client's command falls between them: the records written between the
	// markers are exactly those written between the two counts.
	count := func(first, last func(redis.Pipeliner)) int64 {
		var info *redis.StringCmd
		if _, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			first(p)
			info = p.Info(ctx, "persistence")
			last(p)
			return nil
		}); err != nil {
			t.Fatalf("INFO persistence: %v", err)
		}
		n, err := strconv.ParseInt(ParseInfo(info.Val())["rdb_changes_since_last_save"], 10, 64)
		if err != nil {
			t.Fatalf("rdb_changes_since_last_save: %v", err)
		}
		return n
	}
	none := func(redis.Pipeliner) {}
	before := count(func(p redis.Pipeliner) { p.Echo(ctx, begin) }, none)
	fn()
	after := count(none, func(p redis.Pipeliner) { p.Echo(ctx, end) })
	records := int64(0)
	inside := false
	timeout := time.After(10 * time.Second)
	for {
		select {
		case line, ok := <-m.Lines():
			if !ok {
				t.Fatalf("MONITOR ended before the end marker")
			}
			l, ok := ParseMonitorLine(line)
			if !ok || !l.TopLevel() {
				continue
			}
			if l.Command == "echo" && len(l.Args) == 1 {
				switch l.Args[0] {
				case begin:
					inside = true
					continue
				case end:
					return after - before - records
				}
			}
			if !inside || !l.Registration() {
				continue
			}
			switch l.Command {
			case "set":
				records++ // a SET counts one change, whatever it replaces
			case "del":
				t.Fatalf("a client's registration record was deleted while counting changes (%v): close clients outside the window", l.Args)
			}
		case <-timeout:
			t.Fatalf("end marker not seen")
		}
	}
}
