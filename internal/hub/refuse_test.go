package hub_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/goredisson/redisson/internal/hub"
	"github.com/goredisson/redisson/internal/redistest"
)

// recorder is a Sink that keeps what it is given.
type recorder struct {
	mu    sync.Mutex
	msgs  []hub.Message
	gaps  int
	ended error
	done  chan struct{}
}

func newRecorder() *recorder { return &recorder{done: make(chan struct{})} }

func (r *recorder) Message(m hub.Message) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, m)
	return true
}

func (r *recorder) Gap() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gaps++
}

func (r *recorder) End(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = err
	close(r.done)
}

// got returns the payloads received from channel, and the gaps.
func (r *recorder) got(channel string) ([]string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, m := range r.msgs {
		if m.Channel == channel {
			out = append(out, m.Payload)
		}
	}
	return out, r.gaps
}

// aclUser makes the ACL user app (password pw), allowed every key and the
// channels (patterns) given, and returns a client that connects as app.
func aclUser(t *testing.T, srv *redistest.Server, admin *redis.Client, channels ...string) *redis.Client {
	t.Helper()
	args := []any{"ACL", "SETUSER", "app", "reset", "on", ">pw", "~*", "+@all"}
	for _, c := range channels {
		args = append(args, "&"+c)
	}
	require.NoError(t, admin.Do(context.Background(), args...).Err())
	return redistest.Client(t, srv, func(o *redis.Options) { o.Username, o.Password = "app", "pw" })
}

// hubConnIDs returns the ids of the pub/sub connections of user app.
func hubConnIDs(t *testing.T, admin *redis.Client) []string {
	t.Helper()
	list, err := admin.Do(context.Background(), "CLIENT", "LIST", "TYPE", "pubsub").Text()
	require.NoError(t, err)
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && strings.HasPrefix(f[0], "id=") && strings.Contains(" "+line+" ", " user=app ") {
			ids = append(ids, strings.TrimPrefix(f[0], "id="))
		}
	}
	return ids
}

// refusalCase is a kind of subscription with a name the ACL user may use
// and one it may not.
type refusalCase struct {
	name    string
	kind    hub.Kind
	ok, bad string // a permitted and a refused name of kind
	badPub  string // a channel that reaches bad
	publish func(ctx context.Context, rdb *redis.Client, ch, msg string) error
}

// subscribe registers on name of the case's kind, waiter or listener, and
// drops the registration at once.
func (tc refusalCase) subscribe(ctx context.Context, h *hub.Hub, name string) error {
	if tc.kind == hub.Pattern {
		l, err := h.Listen(ctx, tc.kind, name, newRecorder())
		if err == nil {
			l.Close()
		}
		return err
	}
	w, err := h.Subscribe(ctx, name, hub.LockPolicy)
	if err == nil {
		w.Close(false)
	}
	return err
}

// TestRefusedSubscription: a user whose ACL refuses one channel (pattern,
// shard channel) subscribes it among permitted ones. The refusal reaches
// the callers of that channel at once, as an error wrapping
// ErrNoPermission that names it and what the ACL must allow; the hub's one
// connection stays (its id does not change), a permitted listener gets
// every message published during and after the refusals without a gap, a
// permitted waiter is woken, and channels subscribed in the same burst are
// confirmed. Once the ACL allows the channel, subscribing it works.
func TestRefusedSubscription(t *testing.T) {
	for _, tc := range []refusalCase{
		{"channel", hub.Channel, "app:t", "bad:t", "bad:t", publishPlain},
		{"pattern", hub.Pattern, "app:*", "bad:*", "bad:x", publishPlain},
		{"shard channel", hub.Shard, "app:t", "bad:t", "bad:t", publishShard},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.StartServer(t)
			admin := redistest.Client(t, srv)
			// PSUBSCRIBE needs each pattern listed as it is.
			allowed := []string{"app:*"}
			for i := range 11 {
				allowed = append(allowed, "app:p"+strconv.Itoa(i)+"*")
			}
			h := newHub(t, aclUser(t, srv, admin, allowed...), tc.kind == hub.Shard)
			ctx := context.Background()

			rec := newRecorder()
			l, err := h.Listen(ctx, tc.kind, tc.ok, rec)
			require.NoError(t, err)
			defer l.Close()
			w, err := h.Subscribe(ctx, "app:w", hub.LockPolicy)
			require.NoError(t, err)
			defer w.Close(false)
			ids := hubConnIDs(t, admin)
			require.Len(t, ids, 1)

			stop := startPublisher(t, func(msg string) error { return tc.publish(ctx, admin, "app:t", msg) })
			for round := range 5 {
				start := time.Now()
				err := tc.subscribe(ctx, h, tc.bad)
				took := time.Since(start)
				require.ErrorIs(t, err, hub.ErrNoPermission)
				require.ErrorContains(t, err, strconv.Quote(tc.bad))
				require.ErrorContains(t, err, "&"+tc.bad)
				require.Less(t, took, hub.DefaultConfirmTimeout, "the refusal came before the confirmation timeout")
				burstWithRefused(t, h, tc, round)
			}

			// The permitted waiter is woken.
			for signalled(w) {
			}
			require.NoError(t, tc.publish(ctx, admin, "app:w", "0"))
			waitSignal(t, w)

			n := stop()
			redistest.Eventually(t, 10*time.Second, "every message received", func() bool {
				msgs, _ := rec.got("app:t")
				return len(msgs) >= n
			})
			msgs, gaps := rec.got("app:t")
			require.Len(t, msgs, n)
			for i, m := range msgs {
				require.Equal(t, strconv.Itoa(i), m)
			}
			require.Zero(t, gaps, "the subscription was never made again")
			require.Equal(t, ids, hubConnIDs(t, admin), "the hub's connection was not replaced")

			// Once the ACL allows it, the same hub subscribes it.
			require.NoError(t, admin.Do(ctx, "ACL", "SETUSER", "app", "&"+tc.bad).Err())
			later := newRecorder()
			ll, err := h.Listen(ctx, tc.kind, tc.bad, later)
			require.NoError(t, err)
			defer ll.Close()
			require.NoError(t, tc.publish(ctx, admin, tc.badPub, "late"))
			redistest.Eventually(t, 10*time.Second, "the message on the channel allowed now", func() bool {
				msgs, _ := later.got(tc.badPub)
				return len(msgs) == 1 && msgs[0] == "late"
			})
		})
	}
}

// startPublisher publishes numbered messages with publish until the
// returned stop is called, which returns how many were published.
func startPublisher(t *testing.T, publish func(msg string) error) (stop func() int) {
	t.Helper()
	done := make(chan struct{})
	count := make(chan int)
	go func() {
		n := 0
		defer func() { count <- n }()
		for {
			select {
			case <-done:
				return
			default:
			}
			if err := publish(strconv.Itoa(n)); err != nil {
				t.Error(err)
				return
			}
			n++
			time.Sleep(2 * time.Millisecond)
		}
	}()
	var once sync.Once
	n := 0
	stop = func() int {
		once.Do(func() {
			close(done)
			n = <-count
		})
		return n
	}
	// A test that fails before it stops the publisher stops it before
	// the clients close.
	t.Cleanup(func() { stop() })
	return stop
}

// burstWithRefused subscribes ten permitted names and the refused one at
// once, so that some go out in one command with it, which Redis refuses as
// a whole: the permitted ones must be confirmed all the same.
func burstWithRefused(t *testing.T, h *hub.Hub, tc refusalCase, round int) {
	t.Helper()
	ctx := context.Background()
	errs := make(chan error, 11)
	var wg sync.WaitGroup
	for i := range 11 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := "app:b" + strconv.Itoa(round) + "-" + strconv.Itoa(i)
			if tc.kind == hub.Pattern {
				name = "app:p" + strconv.Itoa(i) + "*"
			}
			if i == 5 {
				if err := tc.subscribe(ctx, h, tc.bad); !errors.Is(err, hub.ErrNoPermission) {
					errs <- fmt.Errorf("the refused one: %v", err)
				}
				return
			}
			errs <- tc.subscribe(ctx, h, name)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func publishPlain(ctx context.Context, rdb *redis.Client, ch, msg string) error {
	return rdb.Publish(ctx, ch, msg).Err()
}

func publishShard(ctx context.Context, rdb *redis.Client, ch, msg string) error {
	return rdb.SPublish(ctx, ch, msg).Err()
}

// TestResubscriptionRefused: the ACL stops allowing a channel the hub has
// subscribed. Redis closes the connection; the hub subscribes its channels
// again on a new one, and the refusal of that one channel ends its
// subscription (the listener ends with ErrNoPermission, the waiter is woken
// and its Err says so) while the other channels are subscribed again.
func TestResubscriptionRefused(t *testing.T) {
	srv := redistest.StartServer(t)
	admin := redistest.Client(t, srv)
	app := aclUser(t, srv, admin, "app:*", "gone")
	h := newHub(t, app, false)
	ctx := context.Background()

	keep := newRecorder()
	lk, err := h.Listen(ctx, hub.Channel, "app:t", keep)
	require.NoError(t, err)
	defer lk.Close()
	lost := newRecorder()
	lg, err := h.Listen(ctx, hub.Channel, "gone", lost)
	require.NoError(t, err)
	defer lg.Close()
	w, err := h.Subscribe(ctx, "gone", hub.LockPolicy)
	require.NoError(t, err)
	defer w.Close(false)
	require.NoError(t, w.Err())

	require.NoError(t, admin.Do(ctx, "ACL", "SETUSER", "app", "resetchannels", "&app:*").Err())
	select {
	case <-lost.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the refused subscription did not end")
	}
	require.ErrorIs(t, lost.ended, hub.ErrNoPermission)
	require.ErrorContains(t, lost.ended, `"gone"`)
	waitSignal(t, w)
	require.ErrorIs(t, w.Err(), hub.ErrNoPermission)
	require.Zero(t, h.Listeners(hub.Channel, "gone"))

	redistest.Eventually(t, 10*time.Second, "app:t subscribed again", func() bool {
		return numSub(t, admin, "app:t") == 1
	})
	require.NoError(t, admin.Publish(ctx, "app:t", "after").Err())
	redistest.Eventually(t, 10*time.Second, "the message after the resubscription", func() bool {
		msgs, _ := keep.got("app:t")
		return len(msgs) == 1 && msgs[0] == "after"
	})
}
