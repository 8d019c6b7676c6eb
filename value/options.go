package value

import "context"

// Option configures a Bucket or an AtomicLong at construction.
type Option func(*options)

type options struct {
	life context.Context // nil: the object lives as long as its go-redis client
}

// WithLifetime ties the object to ctx: once ctx is done, every call fails
// at once, without sending a command, with an error wrapping
// context.Cause(ctx). redisson.NewBucket and redisson.Client.AtomicLong pass
// the Client's lifetime, so their objects fail with redisson.ErrClosed after
// Client.Close, like the Client's locks. A call already past that check when
// ctx ends completes (value calls send one command and never wait). A nil
// ctx means no limit.
func WithLifetime(ctx context.Context) Option {
	return func(o *options) { o.life = ctx }
}

func applyOptions(opts []Option) options {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}
