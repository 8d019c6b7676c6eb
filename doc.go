// Package redisson gives Go services the distributed locks and synchronizers of
// Java's Redisson on the same Redis keys, scripts and pub/sub channels, so Go
// and Java services can hold, wait for and release the same lock.
package redisson
