package redistest

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
)

// UserPassword is the password SetUser gives every user.
const UserPassword = "pw"

// SetUser (re)defines the ACL user from scratch with rules (key patterns,
// channel patterns, commands), through admin; connections logged in as
// the user follow the new rules at once.
func SetUser(t testing.TB, admin *redis.Client, user string, rules ...string) {
	t.Helper()
	args := []any{"ACL", "SETUSER", user, "reset", "on", ">" + UserPassword}
	for _, r := range rules {
		args = append(args, r)
	}
	if err := admin.Do(context.Background(), args...).Err(); err != nil {
		t.Fatalf("redistest.SetUser: %v", err)
	}
}

// UserClient returns a client of s logged in as user (made by SetUser),
// closed at cleanup.
func UserClient(t testing.TB, s *Server, user string) *redis.Client {
	t.Helper()
	return Client(t, s, func(o *redis.Options) { o.Username, o.Password = user, UserPassword })
}
