package run

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/conn"
	"github.com/goredisson/redisson/lockable"
	"github.com/goredisson/redisson/locks"
	"github.com/goredisson/redisson/multilock"
)

// fencingTokenEnv is the variable run --fenced passes CMD the token in.
const FencingTokenEnv = "REDISSON_FENCING_TOKEN"

// nameList is the repeatable --lock flag.
type nameList []string

func (l *nameList) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(*l, ",")
}

func (l *nameList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// hasEmpty reports an empty name among the --lock values.
func (l nameList) hasEmpty() bool {
	for _, n := range l {
		if n == "" {
			return true
		}
	}
	return false
}

// duplicate returns a name given twice, or "".
func (l nameList) duplicate() string {
	seen := make(map[string]bool, len(l))
	for _, n := range l {
		if seen[n] {
			return n
		}
		seen[n] = true
	}
	return ""
}

// withEnv returns env with name set to value (an inherited name=... entry
// replaced).
func withEnv(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}

// multiLock is run's multi-lock (several --lock) or RedLock (--redlock).
type multiLock struct {
	lock  *multilock.Lock
	what  string // for errors: "multi-lock" or "RedLock", as the library's
	label string // for messages: what is held, with the names
}

// newMultiLock returns the multi-lock of names (of kind) on clients[0], or
// with red the RedLock of names[0] on every client.
func newMultiLock(clients []*redisson.Client, kind lockKind, names []string, red bool) *multiLock {
	member := func(c *redisson.Client, name string) lockable.Lock {
		switch kind {
		case lockFair:
			return c.FairLock(name)
		case lockRead:
			return c.ReadWriteLock(name).ReadLock()
		case lockWrite:
			return c.ReadWriteLock(name).WriteLock()
		case lockFenced:
			return c.FencedLock(name)
		}
		return c.Lock(name)
	}
	if red {
		members := make([]lockable.Lock, len(clients))
		for i, c := range clients {
			members[i] = member(c, names[0])
		}
		l := multilock.NewRedLock(members...)
		return &multiLock{lock: l, what: "RedLock",
			label: fmt.Sprintf("RedLock of %s %q on %d servers", kind.what(), names[0], len(clients))}
	}
	members := make([]lockable.Lock, len(names))
	quoted := make([]string, len(names))
	for i, n := range names {
		members[i] = member(clients[0], n)
		quoted[i] = strconv.Quote(n)
	}
	return &multiLock{lock: multilock.New(members...), what: "multi-lock",
		label: fmt.Sprintf("multi-lock of %ss %s", kind.what(), strings.Join(quoted, ", "))}
}

// acquirer returns the function that takes the set: ok is false when it
// was not acquired within wait (nothing is held then).
func (m *multiLock) acquirer(lease time.Duration, wait waitFlag) func(ctx context.Context) (heldLock, bool, error) {
	var opts []locks.Option
	if lease > 0 {
		opts = append(opts, locks.WithLease(lease))
	}
	return take(m.lock.Lock, m.lock.TryLock, opts, wait)
}

// redLockClients connects to every --redis server separately, for a
// RedLock: a server that does not answer now is warned about and kept (it
// is one of the RedLock's members, and may come back), unless fewer than a
// majority answer (exit 1). A bad address is a usage error (exit 2). On
// success closeAll closes the go-redis clients (after the Redisson ones).
func redLockClients(fs *flag.FlagSet, cf *conn.Flags, opts []redisson.Option) (clients []*redisson.Client, closeAll func(), code int) {
	items, _ := cf.Items()
	conns := make([]*conn.Conn, len(items))
	closeConns := func() {
		for _, cn := range conns {
			if cn != nil {
				cn.Close()
			}
		}
	}
	for i, it := range items {
		one := conn.Flags{URLs: conn.URLList{it}, Timeout: cf.Timeout, TLS: cf.TLS}
		cn, err := one.Client(nil)
		if err != nil {
			closeConns()
			if ue, ok := err.(conn.ErrUsage); ok {
				return nil, nil, cliflag.UsageError(fs, "%s", ue.Msg)
			}
			return nil, nil, cliflag.Errorf(fs.Name(), "%v", err)
		}
		conns[i] = cn
	}
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for i, cn := range conns {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), cf.Timeout)
			defer cancel()
			errs[i] = cn.RDB.Ping(ctx).Err()
		})
	}
	wg.Wait()
	up, quorum := 0, len(conns)/2+1
	for i, err := range errs {
		if err == nil {
			up++
			continue
		}
		fmt.Fprintf(os.Stderr, "%s: warning: cannot reach Redis at %s: %v (the RedLock needs %d of its %d servers)\n",
			fs.Name(), conns[i].Display, err, quorum, len(conns))
	}
	if up < quorum {
		closeConns()
		return nil, nil, cliflag.Errorf(fs.Name(), "only %d of %d Redis servers answered; a RedLock needs %d", up, len(conns), quorum)
	}
	for _, cn := range conns {
		c, err := redisson.New(cn.RDB, opts...)
		if err != nil {
			for _, c := range clients {
				c.Close()
			}
			closeConns()
			return nil, nil, cliflag.Errorf(fs.Name(), "%v", err)
		}
		clients = append(clients, c)
	}
	return clients, closeConns, cliflag.ExitOK
}
