package redistest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// AddReplicas starts one cluster-enabled replica per master, joins it to the
// cluster with CLUSTER REPLICATE and waits until each is in sync with its
// master and every node knows every node. Stop stops them too.
func (c *Cluster) AddReplicas(ctx context.Context) error {
	if len(c.Replicas) > 0 {
		return fmt.Errorf("redistest: the cluster has replicas already")
	}
	reps, err := startAll(ctx, len(c.Masters), Options{Cluster: true})
	if err != nil {
		return err
	}
	c.Replicas = reps
	ids := make([]string, len(c.Masters))
	for i, m := range c.Masters {
		mc := m.NewClient(probeOptions)
		ids[i], err = mc.Do(ctx, "CLUSTER", "MYID").Text()
		mc.Close()
		if err != nil {
			return fmt.Errorf("redistest: CLUSTER MYID on %s: %w", m, err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, clusterTimeout)
	defer cancel()
	for i, r := range reps {
		rc := r.NewClient(probeOptions)
		err := func() error {
			defer rc.Close()
			if err := rc.ClusterMeet(ctx, "127.0.0.1", strconv.Itoa(c.Masters[0].Port())).Err(); err != nil {
				return fmt.Errorf("redistest: CLUSTER MEET on %s: %w", r, err)
			}
			// REPLICATE needs the master known by the replica: retry
			// until gossip has brought it.
			for {
				err := rc.Do(ctx, "CLUSTER", "REPLICATE", ids[i]).Err()
				if err == nil {
					return nil
				}
				select {
				case <-ctx.Done():
					return fmt.Errorf("redistest: CLUSTER REPLICATE %s on %s: %w", ids[i], r, err)
				case <-time.After(clusterPollInterval):
				}
			}
		}()
		if err != nil {
			return err
		}
	}
	for i, r := range reps {
		if err := waitReplica(ctx, c.Masters[i], r); err != nil {
			return err
		}
	}
	want := strconv.Itoa(2 * len(c.Masters))
	for _, n := range append(append([]*Server(nil), c.Masters...), reps...) {
		nc := n.NewClient(probeOptions)
		err := func() error {
			defer nc.Close()
			for {
				info, err := nc.ClusterInfo(ctx).Result()
				if err == nil {
					f := ParseInfo(info)
					if f["cluster_known_nodes"] == want && f["cluster_state"] == "ok" {
						return nil
					}
					err = fmt.Errorf("cluster_known_nodes:%s cluster_state:%s", f["cluster_known_nodes"], f["cluster_state"])
				}
				select {
				case <-ctx.Done():
					return fmt.Errorf("redistest: %s does not see the whole cluster: %w", n, err)
				case <-time.After(clusterPollInterval):
				}
			}
		}()
		if err != nil {
			return err
		}
	}
	return nil
}

// StartClusterWithReplicas starts a cluster of masters masters, each with
// one replica, and stops it at cleanup.
func StartClusterWithReplicas(t testing.TB, masters int) *Cluster {
	t.Helper()
	c := StartCluster(t, masters)
	if err := c.AddReplicas(t.Context()); err != nil {
		t.Fatalf("%v", err)
	}
	return c
}

// ReplicaOf returns the replica of master m, or nil.
func (c *Cluster) ReplicaOf(m *Server) *Server {
	for i, s := range c.Masters {
		if s == m && i < len(c.Replicas) {
			return c.Replicas[i]
		}
	}
	return nil
}

// IsMaster reports whether s says it is a master (ROLE).
func IsMaster(ctx context.Context, s *Server) bool {
	sc := s.NewClient(probeOptions)
	defer sc.Close()
	role, err := sc.Do(ctx, "ROLE").Slice()
	return err == nil && len(role) > 0 && strings.EqualFold(fmt.Sprint(role[0]), "master")
}
