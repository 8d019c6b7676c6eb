package inspect

// Report is the result of inspect; its JSON form is documented above.
type Report struct {
	Name         string       `json:"name"`
	Kind         string       `json:"kind"`
	Type         string       `json:"type"`
	TTLms        int64        `json:"ttl_ms"`
	Mode         *string      `json:"mode"`
	Holders      []Holder     `json:"holders"`
	Queue        []Queued     `json:"queue"`
	Value        *int64       `json:"value"`
	Permits      []Permit     `json:"permits"`
	RateLimiter  *RateLimiter `json:"rate_limiter"`
	FencingToken *int64       `json:"fencing_token"`
	GroupValues  []GroupValue `json:"group_values"`
	Channels     []ChannelSub `json:"channels"`
	Waiters      int64        `json:"waiters"`
	Keys         []KeyInfo    `json:"keys"`
	Alternatives []string     `json:"alternatives"`
	Codec        *string      `json:"codec"`
	Decoded      any          `json:"decoded"`
	Size         *int64       `json:"size"`

	raw       []byte // bucket: the stored bytes
	decodeErr error  // bucket: why the guessed codec could not decode them
}

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

// maxListed bounds the queue, permits and read timeout keys read.
const maxListed = 1000
