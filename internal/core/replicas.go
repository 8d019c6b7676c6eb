package core

import (
	"fmt"
	"time"

	"github.com/goredisson/redisson/internal/replicas"
)

// ReplicaSync mirrors Redisson's "synced" lock scripts (checkLockSyncedSlaves):
// after a lock write, WAIT until the master's replicas acknowledged it, so a
// failover right after an acquire does not hand the lock to a second owner.
// The EVALSHA and the WAIT go down one connection in one pipeline, so a
// master without replicas costs nothing and one with replicas costs no extra
// round trip.
type ReplicaSync struct {
	// Enabled turns WAIT on (Redisson default: on).
	Enabled bool
	// Timeout is the WAIT timeout (Redisson's slavesSyncTimeout, 1 s).
	Timeout time.Duration
	// FailOnNoSync makes a write that no replica acknowledged fail with
	// ErrNoSyncedReplicas (Redisson's checkLockSyncedSlaves, default true).
	FailOnNoSync bool

	// c is the per-runtime cache of replica counts; behind a pointer so
	// that the settings can be copied (Config holds them by value).
	c *replicas.Counts
}

// SyncResult tells what the replica sync saw.
type SyncResult struct {
	Replicas int // connected replicas of the key's master
	Acked    int // replicas that acknowledged (WAIT's reply), when Replicas > 0
	// Refused is Redis' error reply to the WAIT (an ACL without +wait):
	// nobody can tell whether a replica has the write.
	Refused error
}

// Failed reports whether the write was not acknowledged by any replica,
// or its WAIT was refused.
func (r SyncResult) Failed() bool { return r.Refused != nil || r.Replicas > 0 && r.Acked == 0 }

// Err is the error of a write that Failed, WAIT having waited timeout:
// "no replica acknowledged the write within 1s (2 replicas connected)".
func (r SyncResult) Err(timeout time.Duration) error {
	if r.Refused != nil {
		// A refusal, not a slow replica: say what Redis answered, and
		// let no wait retry it (ErrNoPermission is not Retryable).
		return Errorf(ErrNoSyncedReplicas, "replica sync is on, but Redis refused its WAIT (allow +wait in the ACL, or turn replica sync off): %w", Permission(r.Refused))
	}
	unit := "replicas"
	if r.Replicas == 1 {
		unit = "replica"
	}
	return fmt.Errorf("%w within %v (%d %s connected)", ErrNoSyncedReplicas, timeout, r.Replicas, unit)
}

// Forget drops cached replica counts (tests, topology changes).
func (rs *ReplicaSync) Forget() { rs.c.Forget() }
