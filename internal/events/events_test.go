package events_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/events"
	"github.com/goredisson/redisson/observe"
)

var errRefused = errors.New("connect: connection refused")

// classify is a client's classifier as far as these tests need one: a
// refused connection or an EOF may pass, anything else may not.
var classify = events.Classify{
	Retryable: func(err error) bool { return errors.Is(err, errRefused) || errors.Is(err, io.EOF) },
	Reason:    func(error) observe.RetryReason { return observe.RetryConnection },
}

// TestTryReason: a try's event classifies its failure as a retry would,
// and leaves it unclassified when it got an answer, cannot pass, or was cut
// short by the end of the caller's context.
func TestTryReason(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name     string
		ctx      context.Context
		classify events.Classify
		err      error
		want     observe.RetryReason
	}{
		{"answered", context.Background(), classify, nil, ""},
		{"connection refused", context.Background(), classify, fmt.Errorf("dial tcp: %w", errRefused), observe.RetryConnection},
		{"EOF", context.Background(), classify, io.EOF, observe.RetryConnection},
		{"cannot pass", context.Background(), classify, errors.New("WRONGTYPE"), ""},
		{"caller gave up", cancelled, classify, errRefused, ""},
		{"no classifier", context.Background(), events.Classify{}, errRefused, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []observe.AcquireTry
			obs := &observe.Observer{AcquireTry: func(_ context.Context, e observe.AcquireTry) { got = append(got, e) }}
			s := events.New(obs, slog.New(slog.DiscardHandler), time.Now(), tc.classify)
			_, a := s.StartAcquire(tc.ctx, "lock", "x", true, 0)
			a.Try(false, tc.err)
			if len(got) != 1 {
				t.Fatalf("got %d try events, want 1", len(got))
			}
			if got[0].Reason != tc.want || got[0].Err != tc.err {
				t.Fatalf("try event %+v, want Reason %q and Err %v", got[0], tc.want, tc.err)
			}
		})
	}
}
