package redistest

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// MoveSlot moves hash slot slot, with its keys, from master from to master
// to of the cluster, as redis-cli --cluster reshard does: IMPORTING on the
// target, MIGRATING on the source, MIGRATE of every key, then SETSLOT NODE
// on the target, the source and every other master. Redis then sends a
// sunsubscribe to every client subscribed (SSUBSCRIBE) on the source to a
// shard channel of the slot.
func (c *Cluster) MoveSlot(ctx context.Context, slot int, from, to *Server) error {
	fc, tc := from.NewClient(probeOptions), to.NewClient(probeOptions)
	defer fc.Close()
	defer tc.Close()
	fromID, err := fc.Do(ctx, "CLUSTER", "MYID").Text()
	if err != nil {
		return fmt.Errorf("redistest: CLUSTER MYID on %s: %w", from, err)
	}
	toID, err := tc.Do(ctx, "CLUSTER", "MYID").Text()
	if err != nil {
		return fmt.Errorf("redistest: CLUSTER MYID on %s: %w", to, err)
	}
	if err := tc.Do(ctx, "CLUSTER", "SETSLOT", slot, "IMPORTING", fromID).Err(); err != nil {
		return fmt.Errorf("redistest: SETSLOT IMPORTING on %s: %w", to, err)
	}
	if err := fc.Do(ctx, "CLUSTER", "SETSLOT", slot, "MIGRATING", toID).Err(); err != nil {
		return fmt.Errorf("redistest: SETSLOT MIGRATING on %s: %w", from, err)
	}
	for {
		keys, err := fc.ClusterGetKeysInSlot(ctx, slot, 100).Result()
		if err != nil {
			return fmt.Errorf("redistest: GETKEYSINSLOT on %s: %w", from, err)
		}
		if len(keys) == 0 {
			break
		}
		args := []any{"MIGRATE", "127.0.0.1", strconv.Itoa(to.Port()), "", 0, 5000, "KEYS"}
		for _, k := range keys {
			args = append(args, k)
		}
		if err := fc.Do(ctx, args...).Err(); err != nil {
			return fmt.Errorf("redistest: MIGRATE on %s: %w", from, err)
		}
	}
	setNode := func(cl *redis.Client, s *Server) error {
		if err := cl.Do(ctx, "CLUSTER", "SETSLOT", slot, "NODE", toID).Err(); err != nil {
			return fmt.Errorf("redistest: SETSLOT NODE on %s: %w", s, err)
		}
		return nil
	}
	if err := setNode(tc, to); err != nil {
		return err
	}
	if err := setNode(fc, from); err != nil {
		return err
	}
	for _, m := range c.Masters {
		if m == from || m == to {
			continue
		}
		mc := m.NewClient(probeOptions)
		err := setNode(mc, m)
		mc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// MasterOf returns the master serving slot according to the cluster's
// initial layout or a later MoveSlot, asking the first master: MoveSlot
// tells every node of a move before it returns.
func (c *Cluster) MasterOf(ctx context.Context, slot int) (*Server, error) {
	if len(c.Masters) == 0 {
		return nil, fmt.Errorf("redistest: no node answered")
	}
	m := c.Masters[0]
	mc := m.NewClient(probeOptions)
	//lint:ignore SA1019 CLUSTER SLOTS lists each range with its master first, which is what is asked here
	slots, err := mc.ClusterSlots(ctx).Result()
	mc.Close()
	if err != nil {
		return nil, err
	}
	for _, s := range slots {
		if int(s.Start) <= slot && slot <= int(s.End) && len(s.Nodes) > 0 {
			for _, cand := range c.Masters {
				if sameAddr(s.Nodes[0].Addr, cand.Addr()) {
					return cand, nil
				}
			}
		}
	}
	return nil, fmt.Errorf("redistest: no master of slot %d in CLUSTER SLOTS of %s", slot, m)
}
