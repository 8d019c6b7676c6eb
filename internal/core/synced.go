package core

import "context"

// EvalSyncedChecked is EvalSynced for a write whose outcome must survive a
// failover as surely as the acquire it follows (a multi-lock member's
// PEXPIRE): with FailOnNoSync, a write no replica acknowledged is an error
// wrapping ErrNoSyncedReplicas (the write did run on the master).
func (rt *Runtime) EvalSyncedChecked(ctx context.Context, s *Script, keys []string, args ...any) (any, error) {
	res, sync, err := rt.EvalSynced(ctx, s, keys, args...)
	if err != nil {
		return nil, err
	}
	if sync.Failed() && rt.sync.FailOnNoSync {
		return nil, sync.Err(rt.sync.Timeout)
	}
	return res, nil
}
