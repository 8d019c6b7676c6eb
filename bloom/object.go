package bloom

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/goredisson/redisson/internal/core"
	"github.com/goredisson/redisson/internal/lua"
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

// fail names the object and op in err. Redisson's scripts refuse with an
// assert whose text is the only sign of what went wrong: those become the
// sentinels. A WRONGTYPE reply says which of the two keys is in the way.
func (b *BloomFilter[T]) fail(ctx context.Context, op string, err error) error {
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
			err = b.wrongType(ctx)
		}
	}
	return b.base.Named(op, err)
}

// wrongType says which key holds another type: the config must be a hash,
// the bit set a string.
func (b *BloomFilter[T]) wrongType(ctx context.Context) error {
	if typ, err := b.base.Redis().Type(context.WithoutCancel(ctx), b.config).Result(); err == nil && typ != "hash" && typ != "none" {
		return fmt.Errorf("%w: %s holds a %s, not a hash", core.ErrWrongType, b.config, typ)
	}
	return core.WrongTypeError(ctx, b.base.Redis(), b.base.Name(), "string")
}
