// Package objinfo holds what ls, inspect and the dashboard read of a
// Redisson object's parts: its keys, holders, queue, permits, group values,
// rate limiter windows, channel subscribers and the holders' clients.
package objinfo

import "strconv"

// Holder is one hash field of a lock.
type Holder struct {
	Field      string  `json:"field"`
	ClientID   *string `json:"client_id"`
	OwnerID    *int64  `json:"owner_id"`
	Holds      int64   `json:"holds"`
	Mode       string  `json:"mode"`
	ReadTTLsms []int64 `json:"read_ttls_ms"`
	// Client is the holder's client from its registration record; nil
	// for an unknown client (Java, or registration off).
	Client *ClientInfo `json:"client"`
	// HeldForMs is how long the hold has lasted, when the record lists it.
	HeldForMs *int64 `json:"held_for_ms"`
}

// GroupValue is one value held in a group multi-lock's hash.
type GroupValue struct {
	Field       string  `json:"field"`
	ClientID    *string `json:"client_id"`
	OwnerID     *int64  `json:"owner_id"`
	Holds       int64   `json:"holds"`
	ExpiresMs   *int64  `json:"expires_ms"`
	ExpiresInMs *int64  `json:"expires_in_ms"`
	Expired     bool    `json:"expired"`
	// Client is the owner's client from its registration record.
	Client *ClientInfo `json:"client"`
}

// Queued is one waiter of a fair lock.
type Queued struct {
	Field     string  `json:"field"`
	ClientID  *string `json:"client_id"`
	OwnerID   *int64  `json:"owner_id"`
	TimeoutMs *int64  `json:"timeout_ms"`
	Stale     bool    `json:"stale"`
	StaleInMs *int64  `json:"stale_in_ms"`
	// Client is the waiter's client from its registration record.
	Client *ClientInfo `json:"client"`
}

// Permit is one acquired permit of a permit-expirable semaphore.
type Permit struct {
	ID          string `json:"id"`
	ExpiresMs   *int64 `json:"expires_ms"`
	ExpiresInMs *int64 `json:"expires_in_ms"`
	Expired     bool   `json:"expired"`
	// ClientID and Client are the permit's holder, when a client's
	// registration record lists the permit; else null.
	ClientID *string     `json:"client_id"`
	Client   *ClientInfo `json:"client"`
}

// PermitHolder is a client that holds permits of a semaphore, as its
// registration record says.
type PermitHolder struct {
	ClientID string      `json:"client_id"`
	Permits  int         `json:"permits"`
	Client   *ClientInfo `json:"client"`
}

// ChannelSub is the subscriber count of one channel.
type ChannelSub struct {
	Channel          string `json:"channel"`
	Subscribers      int64  `json:"subscribers"`
	ShardSubscribers *int64 `json:"shard_subscribers"`
}

// KeyInfo is one existing key.
type KeyInfo struct {
	Key   string `json:"key"`
	Type  string `json:"type"`
	TTLms int64  `json:"ttl_ms"`
}

// pesNoExpiry is the score of a permit without lease (Redisson's
// 922337203685477).
const pesNoExpiry = 922337203685477

// MaxListed bounds the queue, permits and read timeout keys read.
const MaxListed = 1000

// RateLimiter is a rate limiter's config and the state of its windows
// (docs/protocol.md §13.2).
type RateLimiter struct {
	Rate        int64        `json:"rate"`
	IntervalMs  int64        `json:"interval_ms"`
	Type        string       `json:"type"`
	KeepAliveMs int64        `json:"keep_alive_ms"`
	Windows     []RateWindow `json:"windows"`
}

// RateWindow is the state of one window of a rate limiter: the shared one
// (OVERALL) or one client's (PER_CLIENT).
type RateWindow struct {
	ClientID    *string `json:"client_id"`
	ValueKey    string  `json:"value_key"`
	PermitsKey  string  `json:"permits_key"`
	Value       *int64  `json:"value"`
	Available   int64   `json:"available"`
	Used        int64   `json:"used"`
	Grants      int64   `json:"grants"`
	RefillInMs  *int64  `json:"refill_in_ms"`
	ValueTTLms  int64   `json:"value_ttl_ms"`
	UnreadGrant bool    `json:"-"` // a grants member that is not Redisson's 21-byte packing
	// inWindow are the grants still in the window, oldest first (the
	// dashboard's chart).
	InWindow []Grant
}

// Grant is one grant of permits still in a rate limiter's window.
type Grant struct {
	AtMs    int64 `json:"at_ms"`
	Permits int64 `json:"permits"`
}

// RateTypeName is Redisson's name of a RateType stored as "0" or "1".
func RateTypeName(v string) string {
	switch v {
	case "0":
		return "OVERALL"
	case "1":
		return "PER_CLIENT"
	}
	return "unknown (" + strconv.Quote(v) + ")"
}
