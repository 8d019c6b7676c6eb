package redisson

import "github.com/goredisson/redisson/observe"

// Observer receives a client's events (package observe): acquisitions,
// holds, releases, retries, renewal rounds, subscriptions, permits. The
// module github.com/goredisson/redisson/extra/redissonotel makes one that
// records OpenTelemetry metrics and traces.
type Observer = observe.Observer

// WithObserver sets Options.Observer; a later WithObserver replaces it.
// observe.Join(a, b) gives one observer that tells both.
func WithObserver(o *Observer) Option {
	return func(opts *Options) { opts.Observer = o }
}

// registerObserver hands the observer the client's load, for gauges, and
// returns what Close calls.
func registerObserver(c *Client) func() {
	o := c.opts.Observer
	if o == nil || o.Register == nil {
		return func() {}
	}
	unregister := o.Register(func() observe.Stats {
		s := c.Stats()
		return observe.Stats{
			Leases:            s.Leases,
			PubSubConnections: s.PubSub.Connections,
			PubSubChannels:    s.PubSub.Channels,
			PubSubWaiters:     s.PubSub.Waiters,
		}
	})
	if unregister == nil {
		return func() {}
	}
	return unregister
}
