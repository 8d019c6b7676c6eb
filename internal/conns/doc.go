// Package conns keeps the connections lock scripts go down (dedicated
// connections, taken out of go-redis' pool) and bounds the calls made on
// them by their context, without a goroutine per call where it can.
package conns
