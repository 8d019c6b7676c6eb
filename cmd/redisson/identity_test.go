package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/cli/inspect"
	"github.com/goredisson/redisson/internal/cli/ls"
	"github.com/goredisson/redisson/internal/cli/objinfo"
	"github.com/goredisson/redisson/keys"
)

// TestHolderIdentity: inspect and ls name a registered holder's host, pid
// and program and how long it has held; a client without a record is an
// unknown client.
func TestHolderIdentity(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	ctx := context.Background()
	before := time.Now()
	known, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	defer known.Close()
	anon, err := redisson.New(rdb, func(o *redisson.Options) { o.Registration.Disabled = true })
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	h, err := known.Lock("id:known").Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Unlock(context.Background())
	a, err := anon.Lock("id:anon").Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Unlock(context.Background())
	// A fair lock held by the anonymous client, with the known one queued.
	f, err := anon.FairLock("id:fair").Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Unlock(context.Background())
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { _, _ = known.FairLock("id:fair").Lock(wctx) }()
	waitFor(t, 30*time.Second, "the waiter to queue", func() (bool, string) {
		n := rdb.LLen(ctx, keys.FairLockQueue("id:fair")).Val()
		return n == 1, fmt.Sprint(n)
	})

	host, _ := os.Hostname()
	want := objinfo.ClientInfo{Host: host, PID: os.Getpid(), Program: filepath.Base(os.Args[0]), Library: "(devel)",
		Version: redisson.Version}
	check := func(what string, c *objinfo.ClientInfo) {
		t.Helper()
		if c == nil {
			t.Fatalf("%s: no client", what)
		}
		got := *c
		if got.StartedMs < before.UnixMilli()-1000 || got.StartedMs > time.Now().UnixMilli() || !strings.HasPrefix(got.Go, "go") {
			t.Errorf("%s: client %+v", what, got)
		}
		if got.SeenMs < got.StartedMs || got.SeenAgoMs < 0 {
			t.Errorf("%s: last seen %+v", what, got)
		}
		got.StartedMs, got.Go, got.SeenMs, got.SeenAgoMs = 0, "", 0, 0
		if got != want {
			t.Errorf("%s: client %+v, want %+v", what, got, want)
		}
	}

	var rep inspect.Report
	waitFor(t, 30*time.Second, "the hold in the record", func() (bool, string) {
		r := cli(t, 30*time.Second, "inspect", "--json", "--redis", url, "id:known")
		rep = inspect.Report{}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			return false, r.String()
		}
		return len(rep.Holders) == 1 && rep.Holders[0].HeldForMs != nil, r.stdout
	})
	check("inspect id:known", rep.Holders[0].Client)
	if held := *rep.Holders[0].HeldForMs; held < 0 || held > time.Since(before).Milliseconds()+1000 {
		t.Errorf("held for %dms, but the lock was taken less than %v ago", held, time.Since(before))
	}
	r := cli(t, 30*time.Second, "inspect", "--redis", url, "id:known")
	line := fmt.Sprintf("      %s pid %d on %s, held for ", want.Program, want.PID, host)
	if !strings.Contains(r.stdout, line) {
		t.Errorf("inspect text lacks %q:\n%v", line, r)
	}
	if lib := "(redisson-go v" + redisson.Version + " (devel), go"; !strings.Contains(r.stdout, lib) {
		t.Errorf("inspect text lacks %q:\n%v", lib, r)
	}

	r = cli(t, 30*time.Second, "inspect", "--json", "--redis", url, "id:anon")
	rep = inspect.Report{}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err, r)
	}
	if len(rep.Holders) != 1 || rep.Holders[0].Client != nil || rep.Holders[0].HeldForMs != nil {
		t.Errorf("anonymous holder: %+v", rep.Holders)
	}
	r = cli(t, 30*time.Second, "inspect", "--redis", url, "id:anon")
	if !strings.Contains(r.stdout, "      unknown client (Java, or registration off)\n") {
		t.Errorf("inspect text of an unknown client:\n%v", r)
	}

	// The fair lock: an unknown holder, a known waiter.
	r = cli(t, 30*time.Second, "inspect", "--json", "--redis", url, "id:fair")
	rep = inspect.Report{}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err, r)
	}
	if len(rep.Holders) != 1 || rep.Holders[0].Client != nil || len(rep.Queue) != 1 {
		t.Fatalf("fair lock: %+v", rep)
	}
	check("fair lock waiter", rep.Queue[0].Client)

	res := lsJSON(t, "--redis", url, "id:*")
	got := map[string]ls.Object{}
	for _, o := range res.Objects {
		got[o.Name] = o
	}
	if len(res.Objects) != 3 {
		t.Errorf("ls: %s (the client records are not objects)", lsNames(res))
	}
	if o := got["id:known"]; len(o.Holders) != 1 || o.Holders[0].HeldForMs == nil {
		t.Errorf("ls id:known: %+v", o.Holders)
	} else {
		check("ls id:known", o.Holders[0].Client)
	}
	if o := got["id:anon"]; len(o.Holders) != 1 || o.Holders[0].Client != nil {
		t.Errorf("ls id:anon: %+v", o.Holders)
	}
	r = cli(t, 30*time.Second, "ls", "--redis", url, "id:*")
	me := fmt.Sprintf("%s[%d]@%s", want.Program, want.PID, host)
	for _, l := range strings.Split(r.stdout, "\n") {
		switch {
		case strings.HasPrefix(l, "id:known "):
			if !strings.Contains(l, " "+me+" ") {
				t.Errorf("ls line lacks %s: %q", me, l)
			}
		case strings.HasPrefix(l, "id:anon "):
			if !strings.Contains(l, " unknown client (Java, or registration off) ") {
				t.Errorf("ls line of an unknown client: %q", l)
			}
		}
	}
}
