// releasetest tests the release: scripts/release.sh on a temporary
// repository, and the modules as a user fetches them (packed into a module
// proxy on disk, built from an outside module). A module of its own, so
// that golang.org/x/mod stays out of the library's go.mod.
module github.com/goredisson/redisson/internal/releasetest

go 1.26.0

require (
	github.com/goredisson/redisson v0.1.0
	golang.org/x/mod v0.41.0
)
