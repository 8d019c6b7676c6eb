package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/inspect"
)

// writeRequest is the body of every write.
type writeRequest struct {
	Name string `json:"name"`
	Op   string `json:"op"` // permits: "set" or "add"
	N    int    `json:"n"`
}

// WriteResult is what a write answers.
type WriteResult struct {
	OK      bool   `json:"ok"`
	Message string `json:"message"`
}

// write wraps a write handler: the anti-forgery header, the Origin, a
// JSON body with a name, and the answer as JSON.
func (d *dashboard) write(fn func(ctx context.Context, req writeRequest) (string, int, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if msg, ok := sameOrigin(r); !ok {
			writeJSON(w, http.StatusForbidden, WriteResult{Message: msg})
			return
		}
		if r.Header.Get("X-Redisson-Dashboard") != "1" {
			writeJSON(w, http.StatusForbidden, WriteResult{Message: "missing header X-Redisson-Dashboard: 1"})
			return
		}
		var req writeRequest
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&req); err != nil || req.Name == "" {
			writeJSON(w, http.StatusBadRequest, WriteResult{Message: "want a JSON body with a non-empty name"})
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 4*d.o.timeout)
		defer cancel()
		msg, status, err := fn(ctx, req)
		if err != nil {
			writeJSON(w, status, WriteResult{Message: err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, WriteResult{OK: true, Message: msg})
	}
}

// sameOrigin checks a write's Origin: a browser sends one with every POST,
// and a page of another origin must not write even when it managed to send
// the header (a proxy that adds it, a browser bug). A request without
// Origin is not a browser's (curl, a script): the header check covers it.
func sameOrigin(r *http.Request) (string, bool) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return "", true
	}
	u, err := url.Parse(origin)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Path == "" && strings.EqualFold(u.Host, r.Host) {
		return "", true
	}
	return fmt.Sprintf("cross-origin write refused: Origin %q is not this dashboard's (host %q)", origin, r.Host), false
}

func (d *dashboard) forceUnlock(ctx context.Context, req writeRequest) (string, int, error) {
	rep, err := inspect.Inspect(ctx, d.rdb, req.Name)
	if err != nil {
		return "", http.StatusBadGateway, err
	}
	var deleted bool
	// The spin and non-reentrant locks share the plain and fair locks'
	// keys and are released as those are.
	switch classify.Base(rep.Kind) {
	case classify.Lock:
		deleted, err = d.client.Lock(req.Name).ForceUnlock(ctx)
	case classify.FairLock:
		deleted, err = d.client.FairLock(req.Name).ForceUnlock(ctx)
	case classify.RWLock:
		rw := d.client.ReadWriteLock(req.Name)
		if rep.Mode != nil && *rep.Mode == "write" {
			deleted, err = rw.WriteLock().ForceUnlock(ctx)
		} else {
			deleted, err = rw.ReadLock().ForceUnlock(ctx)
		}
	case classify.None:
		return fmt.Sprintf("%q was not locked: nothing deleted", req.Name), http.StatusOK, nil
	default:
		return "", http.StatusConflict, fmt.Errorf("%q holds %s, not a lock: not force-unlocking it", req.Name, inspect.DescribeKind(rep))
	}
	if err != nil {
		return "", http.StatusBadGateway, err
	}
	if !deleted {
		return fmt.Sprintf("%q was not locked: nothing deleted", req.Name), http.StatusOK, nil
	}
	return fmt.Sprintf("%s %q force-unlocked; waiters notified", rep.Kind, req.Name), http.StatusOK, nil
}

func (d *dashboard) setPermits(ctx context.Context, req writeRequest) (string, int, error) {
	if req.Op != "set" && req.Op != "add" {
		return "", http.StatusBadRequest, fmt.Errorf("op must be set or add, got %q", req.Op)
	}
	if req.Op == "set" && req.N < 0 {
		return "", http.StatusBadRequest, fmt.Errorf("cannot set %d permits", req.N)
	}
	rep, err := inspect.Inspect(ctx, d.rdb, req.Name)
	if err != nil {
		return "", http.StatusBadGateway, err
	}
	type permitter interface {
		SetPermits(context.Context, int) error
		AddPermits(context.Context, int) error
	}
	var p permitter
	switch rep.Kind {
	case classify.Semaphore, classify.AtomicLong, classify.SemOrLatch, classify.None:
		p = d.client.Semaphore(req.Name)
	case classify.Expirable:
		p = d.client.PermitExpirableSemaphore(req.Name)
	default:
		return "", http.StatusConflict, fmt.Errorf("%q holds %s, not a semaphore", req.Name, inspect.DescribeKind(rep))
	}
	if req.Op == "set" {
		err = p.SetPermits(ctx, req.N)
	} else {
		err = p.AddPermits(ctx, req.N)
	}
	if err != nil {
		return "", http.StatusConflict, err
	}
	return fmt.Sprintf("%s permits of %q: done", req.Op, req.Name), http.StatusOK, nil
}

func (d *dashboard) deleteObject(ctx context.Context, req writeRequest) (string, int, error) {
	rep, err := inspect.Inspect(ctx, d.rdb, req.Name)
	if err != nil {
		return "", http.StatusBadGateway, err
	}
	n := int64(0)
	for _, k := range rep.Keys {
		c, err := d.rdb.Del(ctx, k.Key).Result()
		if err != nil {
			return "", http.StatusBadGateway, fmt.Errorf("DEL %s: %w", k.Key, err)
		}
		n += c
	}
	return fmt.Sprintf("%q deleted: %d key(s)", req.Name, n), http.StatusOK, nil
}
