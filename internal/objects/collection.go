package objects

import "github.com/goredisson/redisson/internal/core"

// NewCollectionSource makes a *collection.Source, the client's Redis
// client and lifetime that the collection constructors take; set by
// package collection. (The collections are generic, so, as with the
// topics, the root package makes the Source and passes it to
// collection.NewMap[K, V] and its kin.)
var NewCollectionSource func(rt *core.Runtime) any
