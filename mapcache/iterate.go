package mapcache

import (
	"context"
	"fmt"
	"iter"

	"github.com/goredisson/redisson/collection"
	"github.com/goredisson/redisson/internal/core"
)

// DefaultPageSize is the COUNT of one page of HSCAN when WithPageSize is
// not given: Redisson's iterators use 10.
const DefaultPageSize = 10

// ScanOption configures one iteration.
type ScanOption func(*scanOptions)

type scanOptions struct {
	page  int
	match string
}

// WithPageSize sets the COUNT of each HSCAN page (a hint to Redis). At
// least 1; default DefaultPageSize.
func WithPageSize(n int) ScanOption { return func(o *scanOptions) { o.page = n } }

// WithMatch keeps only the entries whose encoded keys match the glob
// pattern (HSCAN's MATCH, applied to what the key codec wrote).
func WithMatch(pattern string) ScanOption { return func(o *scanOptions) { o.match = pattern } }

// Entries iterates over the live entries a page at a time with Redisson's
// scan script (HSCAN, dropping the expired entries in Redis): each pair is
// an entry and nil or, last, a zero entry and the error that ended the
// iteration. An entry that has a max idle time has it restarted, as Java's
// iterator does. Scans have Redis' SCAN guarantees (see package
// collection, Iteration).
func (m *MapCache[K, V]) Entries(ctx context.Context, opts ...ScanOption) iter.Seq2[collection.Entry[K, V], error] {
	if m == nil {
		return core.NilSeq2[collection.Entry[K, V]](kind, "entries")
	}
	return m.entries(ctx, "iterate entries", opts, true)
}

// Keys iterates over the keys of the live entries, as Entries does.
func (m *MapCache[K, V]) Keys(ctx context.Context, opts ...ScanOption) iter.Seq2[K, error] {
	if m == nil {
		return core.NilSeq2[K](kind, "keys")
	}
	return func(yield func(K, error) bool) {
		for e, err := range m.entries(ctx, "iterate keys", opts, false) {
			if !yield(e.Key, err) || err != nil {
				return
			}
		}
	}
}

// Values iterates over the values of the live entries, as Entries does.
func (m *MapCache[K, V]) Values(ctx context.Context, opts ...ScanOption) iter.Seq2[V, error] {
	if m == nil {
		return core.NilSeq2[V](kind, "values")
	}
	return func(yield func(V, error) bool) {
		for e, err := range m.entries(ctx, "iterate values", opts, true) {
			if !yield(e.Value, err) || err != nil {
				return
			}
		}
	}
}

func (m *MapCache[K, V]) entries(ctx context.Context, op string, opts []ScanOption, values bool) iter.Seq2[collection.Entry[K, V], error] {
	return func(yield func(collection.Entry[K, V], error) bool) {
		so := scanOptions{page: DefaultPageSize}
		for _, opt := range opts {
			if opt != nil {
				opt(&so)
			}
		}
		if so.page < 1 {
			yield(collection.Entry[K, V]{}, m.base.Invalid(op, "the page size must be at least 1, got %d", so.page))
			return
		}
		cursor := "0"
		for {
			items, next, err := m.page(ctx, op, cursor, so)
			if err != nil {
				yield(collection.Entry[K, V]{}, err)
				return
			}
			for i := 0; i+1 < len(items); i += 2 {
				e, err := m.entry(ctx, op, items[i], items[i+1], values)
				if err != nil {
					yield(collection.Entry[K, V]{}, err)
					return
				}
				if !yield(e, nil) {
					return
				}
			}
			if next == "0" || next == "" {
				return
			}
			cursor = next
		}
	}
}

func (m *MapCache[K, V]) entry(ctx context.Context, op string, k, v any, values bool) (collection.Entry[K, V], error) {
	var e collection.Entry[K, V]
	if err := m.base.Check(ctx, op); err != nil {
		return e, err
	}
	ks, _ := k.(string)
	key, err := m.decodeKey(ks)
	if err != nil {
		return e, m.base.Fail(ctx, op, err)
	}
	e.Key = key
	if values {
		if e.Value, _, err = m.value(ctx, op, v); err != nil {
			return e, err
		}
	}
	return e, nil
}

// page runs the scan script for one page, then restarts the max idle time
// of the page's idle entries as Java does after each page.
func (m *MapCache[K, V]) page(ctx context.Context, op, cursor string, so scanOptions) ([]any, string, error) {
	if err := m.base.Check(ctx, op); err != nil {
		return nil, "", err
	}
	args := []any{now(), cursor}
	if so.match != "" {
		args = append(args, so.match)
	}
	args = append(args, so.page)
	reply, err := m.eval(ctx, scanScript, false, m.keyList(m.k.timeout, m.k.idle), args...)
	if err != nil {
		return nil, "", m.base.Fail(ctx, op, err)
	}
	parts, ok := reply.([]any)
	var items, idle []any
	var next string
	if ok && len(parts) == 3 {
		next, _ = parts[0].(string)
		items, _ = parts[1].([]any)
		idle, _ = parts[2].([]any)
	}
	if !ok || len(parts) != 3 || len(items)%2 != 0 {
		return nil, "", m.base.Fail(ctx, op, fmt.Errorf("unexpected scan reply %v", reply))
	}
	if len(idle) > 0 {
		_, err := m.eval(ctx, scanTouchScript, true, m.keyList(m.k.idle), append([]any{now()}, idle...)...)
		if err != nil {
			return nil, "", m.base.Fail(ctx, op, err)
		}
	}
	return items, next, nil
}
