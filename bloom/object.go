package bloom

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/handle"
	"github.com/goredisson/redisson/internal/lua"
	"github.com/goredisson/redisson/source"
)

// kind is how the filter's errors name it: `bloom filter "<name>": <op>: <cause>`.
const kind = "bloom filter"

// The errors of a filter whose config is not the one the call needs; both
// are reported as Redisson reports them, so a Go and a Java client agree.
var (
	// ErrNotInitialized: {name}:config does not exist (no TryInit yet, or
	// the filter was deleted).
	ErrNotInitialized = errors.New("redisson: bloom filter is not initialized")
	// ErrConfigChanged: {name}:config holds another size or hash count
	// than this handle's (another TryInit won); make a new handle, which
	// reads the stored config.
	ErrConfigChanged = errors.New("redisson: bloom filter config has been changed")
)

// Redisson's scripts, byte for byte (their SHA-1s are the records').
var (
	tryInitScript     = core.NewScript("bloom.tryInit", lua.MustText(luaFiles, "lua/try_init.lua"))
	addScript         = core.NewScript("bloom.add", lua.MustText(luaFiles, "lua/add.lua"))
	containsScript    = core.NewScript("bloom.contains", lua.MustText(luaFiles, "lua/contains.lua"))
	readSettingScript = core.NewScript("bloom.readSetting", lua.MustText(luaFiles, "lua/read_setting.lua"))
)

// object is the filter's keys, its client, and how its errors name it.
type object struct {
	rdb    redis.UniversalClient
	name   string          // the bit set
	config string          // {name}:config
	err    error           // the constructor's: an empty name, a nil client or codec
	life   context.Context // the client's: done with cause ErrClosed by its Close
}

func newObject(src *source.Source, name string) object {
	o := object{name: name}
	if rt := (*handle.Source)(src).Runtime(); rt != nil {
		o.rdb, o.life = rt.Redis(), rt.Lifetime()
	}
	switch {
	case name == "":
		o.err = fmt.Errorf("%w: the name must not be empty", core.ErrInvalidName)
	case o.rdb == nil:
		o.err = fmt.Errorf("%w: nil Redis client", core.ErrInvalidArgument)
	}
	return o
}

// check returns why a call cannot be made: an invalid handle, a nil ctx, or
// the end of its client (Close).
func (o *object) check(ctx context.Context, op string) error {
	switch {
	case o.err != nil:
		return o.named(op, o.err)
	case ctx == nil:
		return o.named(op, core.ErrNilContext)
	case o.life.Err() != nil:
		return o.named(op, context.Cause(o.life))
	}
	return nil
}

// fail names the object and op in err. Redisson's scripts refuse with an
// assert whose text is the only sign of what went wrong: those become the
// sentinels. A WRONGTYPE reply says which of the two keys is in the way.
func (o *object) fail(ctx context.Context, op string, err error) error {
	if err == nil {
		return nil
	}
	var re redis.Error
	if errors.As(err, &re) {
		msg := re.Error()
		switch {
		case strings.Contains(msg, "Bloom filter config has been changed"):
			err = ErrConfigChanged
		case strings.Contains(msg, "Bloom filter is not initialized"):
			err = ErrNotInitialized
		case strings.HasPrefix(msg, "WRONGTYPE"):
			err = o.wrongType(ctx)
		}
	}
	return o.named(op, err)
}

// wrongType says which key holds another type: the config must be a hash,
// the bit set a string.
func (o *object) wrongType(ctx context.Context) error {
	if typ, err := o.rdb.Type(context.WithoutCancel(ctx), o.config).Result(); err == nil && typ != "hash" && typ != "none" {
		return fmt.Errorf("%w: %s holds a %s, not a hash", core.ErrWrongType, o.config, typ)
	}
	return core.WrongTypeError(ctx, o.rdb, o.name, "string")
}

func (o *object) named(op string, err error) error {
	if err == nil {
		return nil
	}
	return &core.ObjectError{Kind: kind, Name: o.name, Op: op, Err: err}
}
