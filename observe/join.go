package observe

import "context"

// Join returns an Observer that hands every event to each of obs in turn,
// in the order given: several observers on one client, such as
// extra/redissonotel's and one of your own. Nil observers are skipped;
// Join returns nil when none is left (no observer, which costs nothing)
// and the observer itself when one is left. A field of the result is set
// only when at least one of obs sets it.
//
// AcquireStart and ReleaseStart run in turn, each given the context the
// one before it returned; the acquisition or release runs under the last
// one's. Each observer's later events of that call (AcquireTry,
// AcquireEnd, Retry, ReleaseEnd, ...) get the context its own start
// returned, so two observers that keep a value under the same context
// key (two tracers' spans) each find their own. Register's functions are
// all called, and the unregister Join returns calls every one they
// returned.
func Join(obs ...*Observer) *Observer {
	var live []*Observer
	for _, o := range obs {
		if o != nil {
			live = append(live, o)
		}
	}
	switch len(live) {
	case 0:
		return nil
	case 1:
		return live[0]
	}
	j := &Observer{}
	key := joinKey{j}
	*j = Observer{
		AcquireStart: starts(key, live, func(o *Observer) func(context.Context, AcquireStart) context.Context { return o.AcquireStart }),
		AcquireTry:   events(key, live, func(o *Observer) func(context.Context, AcquireTry) { return o.AcquireTry }),
		AcquireEnd:   events(key, live, func(o *Observer) func(context.Context, AcquireEnd) { return o.AcquireEnd }),
		HoldEnd:      events(key, live, func(o *Observer) func(context.Context, HoldEnd) { return o.HoldEnd }),
		ReleaseStart: starts(key, live, func(o *Observer) func(context.Context, ReleaseStart) context.Context { return o.ReleaseStart }),
		ReleaseEnd:   events(key, live, func(o *Observer) func(context.Context, ReleaseEnd) { return o.ReleaseEnd }),
		Retry:        events(key, live, func(o *Observer) func(context.Context, Retry) { return o.Retry }),
		Subscribe:    events(key, live, func(o *Observer) func(context.Context, Subscribe) { return o.Subscribe }),
		Subscription: plain(live, func(o *Observer) func(Subscription) { return o.Subscription }),
		Renewal:      plain(live, func(o *Observer) func(Renewal) { return o.Renewal }),
		LocalCache:   plain(live, func(o *Observer) func(LocalCache) { return o.LocalCache }),
		Permits:      events(key, live, func(o *Observer) func(context.Context, Permits) { return o.Permits }),
		RateLimit:    events(key, live, func(o *Observer) func(context.Context, RateLimit) { return o.RateLimit }),
		CountDown:    events(key, live, func(o *Observer) func(context.Context, CountDown) { return o.CountDown }),
		Register:     registers(live),
	}
	return j
}

// joinKey holds, in the context a joined start returns, the context each
// observer's own start returned (indexed as the joined observers). The
// joined Observer's address tells apart the joins of a Join of Joins.
type joinKey struct{ j *Observer }

// own returns the context observer i of a join gave ctx's call, or ctx
// itself for an event outside a start (or of another client).
func own(ctx context.Context, key joinKey, i int) context.Context {
	if ctxs, ok := ctx.Value(key).([]context.Context); ok && i < len(ctxs) {
		return ctxs[i]
	}
	return ctx
}

func starts[E any](key joinKey, live []*Observer, get func(*Observer) func(context.Context, E) context.Context) func(context.Context, E) context.Context {
	if !set(live, func(o *Observer) bool { return get(o) != nil }) {
		return nil
	}
	return func(ctx context.Context, e E) context.Context {
		ctxs := make([]context.Context, len(live))
		for i, o := range live {
			if f := get(o); f != nil {
				ctx = f(ctx, e)
			}
			ctxs[i] = ctx
		}
		return context.WithValue(ctx, key, ctxs)
	}
}

func events[E any](key joinKey, live []*Observer, get func(*Observer) func(context.Context, E)) func(context.Context, E) {
	if !set(live, func(o *Observer) bool { return get(o) != nil }) {
		return nil
	}
	return func(ctx context.Context, e E) {
		for i, o := range live {
			if f := get(o); f != nil {
				f(own(ctx, key, i), e)
			}
		}
	}
}

func plain[E any](live []*Observer, get func(*Observer) func(E)) func(E) {
	if !set(live, func(o *Observer) bool { return get(o) != nil }) {
		return nil
	}
	return func(e E) {
		for _, o := range live {
			if f := get(o); f != nil {
				f(e)
			}
		}
	}
}

func registers(live []*Observer) func(func() Stats) func() {
	get := func(o *Observer) func(func() Stats) func() { return o.Register }
	if !set(live, func(o *Observer) bool { return get(o) != nil }) {
		return nil
	}
	return func(stats func() Stats) func() {
		var unregs []func()
		for _, o := range live {
			if o.Register == nil {
				continue
			}
			if u := o.Register(stats); u != nil {
				unregs = append(unregs, u)
			}
		}
		if len(unregs) == 0 {
			return nil
		}
		return func() {
			for _, u := range unregs {
				u()
			}
		}
	}
}

// set reports whether any of live sets the field has reads.
func set(live []*Observer, has func(*Observer) bool) bool {
	for _, o := range live {
		if has(o) {
			return true
		}
	}
	return false
}
