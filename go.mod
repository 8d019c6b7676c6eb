module github.com/goredisson/redisson

go 1.26.8
