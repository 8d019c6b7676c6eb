package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/cli/inspect"
	"github.com/goredisson/redisson/multilock"
)

// TestInspectGroup: a group multi-lock's hash shows as one, with each held
// value's field id, owner, hold count and expiry; unlock --force leaves it
// alone.
func TestInspectGroup(t *testing.T) {
	t.Parallel()
	url, rdb := server(t)
	client, err := redisson.New(rdb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	g := client.MultiLockGroup("jobs", "a", "b")
	h, err := g.Lock(t.Context(), multilock.WithLease(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Unlock(t.Context()) })
	ids := g.FieldIDs()

	r := cli(t, 30*time.Second, "inspect", "--redis", url, "jobs")
	if r.code != 0 || !strings.Contains(r.stdout, "group multi-lock (Redis hash)") || !strings.Contains(r.stdout, "2 held") {
		t.Fatalf("inspect of a group: want the kind and 2 values held:\n%v", r)
	}
	t.Logf("inspect:\n%s", r.stdout)
	for _, id := range ids {
		if !strings.Contains(r.stdout, id+"  client ") || !strings.Contains(r.stdout, "holds 1  expires in ") {
			t.Errorf("inspect does not show value %s with its owner and expiry:\n%v", id, r)
		}
	}

	r = cli(t, 30*time.Second, "inspect", "--json", "--redis", url, "jobs")
	var rep inspect.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 {
		t.Fatalf("inspect --json: %v\n%v", err, r)
	}
	if rep.Kind != classify.Group || len(rep.GroupValues) != 2 || len(rep.Holders) != 0 {
		t.Fatalf("JSON: kind %q, %d group values, %d holders", rep.Kind, len(rep.GroupValues), len(rep.Holders))
	}
	for _, v := range rep.GroupValues {
		if v.OwnerID == nil || *v.OwnerID != h.Owner() || v.Holds != 1 || v.ExpiresInMs == nil ||
			*v.ExpiresInMs <= 0 || *v.ExpiresInMs > time.Minute.Milliseconds() || v.Expired || (v.Field != ids[0] && v.Field != ids[1]) {
			t.Errorf("group value %+v", v)
		}
	}

	r = cli(t, 30*time.Second, "unlock", "--force", "--redis", url, "jobs")
	if r.code != cliflag.ExitError || rdb.Exists(t.Context(), "jobs").Val() != 1 {
		t.Errorf("unlock --force of a group: want exit 1 and the group left alone:\n%v", r)
	}
}
