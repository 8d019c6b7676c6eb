package ls

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/cli/classify"
	"github.com/goredisson/redisson/internal/cli/objinfo"
)

// skipUnchanged takes out of read the objects the rotating pass alone
// brought (not in must) whose reading cannot have changed: a lock, fair
// lock or map whose only key is its own hash, of no more than
// objinfo.MaxListed fields, with the same fields and values as its reading
// found. What else such a reading depends on shows elsewhere:
// a fair lock's queue, a token or a cache's keys are keys of their own,
// whose change the pass brings as a new key or one of another type; waiters
// and holders with a record make the object hot. Its TTL, read now, is
// kept.
func (s *Scanner) skipUnchanged(ctx context.Context, read, must map[string]bool, infos map[string]objinfo.KeyInfo) error {
	var names []string
	for n := range read {
		if !must[n] && s.unchangedCandidate(n, infos[n]) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil
	}
	cmds := make([]*redis.MapStringStringCmd, len(names))
	pipe := s.rdb.Pipeline()
	for i, n := range names {
		cmds[i] = pipe.HGetAll(ctx, n)
	}
	if err := objinfo.ExecPipe(ctx, pipe); err != nil {
		return err
	}
	now := time.Now().UnixMilli()
	for i, n := range names {
		e := s.objs[n]
		f := fieldsText(cmds[i].Val())
		if f != e.fields {
			continue // changed: read it again
		}
		delete(read, n)
		s.skipped++
		e.deadline = -1
		if ttl := infos[n].TTLms; ttl >= 0 {
			e.deadline = now + ttl
		}
	}
	return nil
}

// unchangedCandidate reports an object skipUnchanged may leave unread.
func (s *Scanner) unchangedCandidate(n string, head objinfo.KeyInfo) bool {
	e := s.objs[n]
	if e == nil || e.obj == nil || head.Type != "hash" || e.obj.Type != "hash" || len(e.keys) != 1 || !e.keys[n] {
		return false
	}
	switch e.obj.Kind {
	case classify.Lock, classify.FairLock:
	case classify.Map:
		if e.obj.Size == nil || *e.obj.Size > objinfo.MaxListed {
			return false
		}
	default:
		return false
	}
	return true
}

// fieldsText is a hash's fields and values as one string, in field order,
// each preceded by its length.
func fieldsText(m map[string]string) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var b strings.Builder
	for _, k := range ks {
		for _, x := range []string{k, m[k]} {
			b.WriteString(strconv.Itoa(len(x)))
			b.WriteByte(':')
			b.WriteString(x)
		}
	}
	return b.String()
}
