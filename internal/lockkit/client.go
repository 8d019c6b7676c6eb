package lockkit

import (
	"reflect"

	"github.com/goredisson/redisson/internal/core"
)

// Client is the runtime of a lock's client, for the multi-lock, which
// reports its events to its first member's client. Each lock kind embeds
// it in its public type under an unexported alias (type client =
// lockkit.Client): the embedded field is unexported and its method,
// unexported in this package, is promoted into the kind's method set, so
// RuntimeOf finds it through an interface nobody outside this package can
// name or call.
type Client struct {
	rt *core.Runtime
}

// ClientOf returns the Client of rt.
func ClientOf(rt *core.Runtime) Client { return Client{rt: rt} }

func (c Client) runtime() *core.Runtime { return c.rt }

// RuntimeOf returns the runtime of a lock of this module's kinds; nil for
// a nil lock or a lock implemented elsewhere (lockable.Lock).
func RuntimeOf(l any) *core.Runtime {
	m, ok := l.(interface{ runtime() *core.Runtime })
	if !ok {
		return nil
	}
	if v := reflect.ValueOf(l); v.Kind() == reflect.Pointer && v.IsNil() {
		// The promoted method would dereference the nil pointer.
		return nil
	}
	return m.runtime()
}
