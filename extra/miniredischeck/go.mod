module github.com/goredisson/redisson/extra/miniredischeck

go 1.26.0

replace github.com/goredisson/redisson => ../..

require github.com/goredisson/redisson v0.0.0

require (
	github.com/alicebob/miniredis/v2 v2.40.0 // indirect
	github.com/yuin/gopher-lua v1.1.1 // indirect
)
