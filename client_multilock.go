package redisson

import "github.com/goredisson/redisson/multilock"

// MultiLockGroup returns the group multi-lock of values in group
// (Redisson's getMultiLock(group, values), RedissonFasterMultiLock): every
// value locked at once in the one hash group, for one owner. Values are
// named in Redis by keys.GroupMultiLockField of their UTF-8 bytes, as a Java peer
// with StringCodec names them. The handle is cheap and safe for concurrent
// use; an empty group name, no values or a value given twice make every
// call fail (ErrInvalidName, ErrInvalidArgument).
//
// For a multi-lock over separate lock objects (possibly of different
// Clients) use multilock.New, and multilock.NewRedLock for a RedLock.
func (c *Client) MultiLockGroup(group string, values ...string) *multilock.Group {
	return multilock.NewGroup(c.Source(), group, values...)
}
