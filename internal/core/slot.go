package core

import "github.com/goredisson/redisson/internal/slot"

// SlotCount is the number of Redis Cluster hash slots.
const SlotCount = slot.Count

// Slot returns the Redis Cluster hash slot of key.
func Slot(key string) int { return slot.Of(key) }
