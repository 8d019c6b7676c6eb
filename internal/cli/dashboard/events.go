package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/goredisson/redisson/internal/cli/ls"
)

// sse starts an event stream; nil when the connection cannot stream.
func sse(w http.ResponseWriter) http.Flusher {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return nil
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "retry: 1000\n\n")
	fl.Flush()
	return fl
}

// sendEvent writes one event whose data is a single line of JSON.
func sendEvent(w io.Writer, fl http.Flusher, event string, data []byte) error {
	if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data); err != nil {
		return err
	}
	fl.Flush()
	return nil
}

// heartbeat keeps proxies from closing a quiet stream.
const heartbeat = 15 * time.Second

func (d *dashboard) eventsLs(w http.ResponseWriter, r *http.Request) {
	fl := sse(w)
	if fl == nil {
		return
	}
	ch, cancel := d.lsFeed().subscribe()
	defer cancel()
	beat := time.NewTicker(heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-d.stopped():
			return
		case st := <-ch:
			if sendEvent(w, fl, "ls", st.fullJSON()) != nil {
				return
			}
		case <-beat.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return
			}
			fl.Flush()
		}
	}
}

// lsFeed is the one scan every list page shares.
func (d *dashboard) lsFeed() *feed {
	d.feedOnce.Do(func() {
		// The feed reads from one goroutine at a time: the scanner needs
		// no lock. After a pause without listeners its state is too old:
		// it starts over with a whole pass.
		sc := ls.NewScanner(d.rdb, d.o.ls)
		sc.Stale = 3 * d.o.interval
		var prev *lsState
		d.feed = newFeed(d.o.interval, func() *lsState {
			v := d.lsView(context.Background(), sc.Next)
			d.record(v)
			prev = nextLsState(v, prev)
			return prev
		})
	})
	return d.feed
}

// eventsOverview streams the overview page's rows: the page asks for its
// filter, sort and slice with query parameters (see parseViewQuery); the
// stream sends a snapshot of those rows, then after each read only the
// rows added, changed or removed, so that neither the stream nor the page
// grows with the number of objects.
func (d *dashboard) eventsOverview(w http.ResponseWriter, r *http.Request) {
	v := newViewer(parseViewQuery(r.URL.Query()))
	fl := sse(w)
	if fl == nil {
		return
	}
	ch, cancel := d.lsFeed().subscribe()
	defer cancel()
	beat := time.NewTicker(heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-d.stopped():
			return
		case st := <-ch:
			name, ev := v.next(st)
			if ev == nil {
				continue
			}
			data, _ := json.Marshal(ev)
			if sendEvent(w, fl, name, data) != nil {
				return
			}
		case <-beat.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return
			}
			fl.Flush()
		}
	}
}

func (d *dashboard) eventsObject(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	if name == "" {
		http.Error(w, "name is required", http.StatusBadRequest)
		return
	}
	fl := sse(w)
	if fl == nil {
		return
	}
	// The page draws the object's history: keep the scans that record it
	// running while the page is open.
	_, unsubscribe := d.lsFeed().subscribe()
	defer unsubscribe()
	tick := time.NewTicker(d.o.interval)
	defer tick.Stop()
	var last []byte
	lastSent := time.Time{}
	for {
		v := d.readObject(r.Context(), name)
		data, _ := json.Marshal(v)
		// The page counts TTLs down itself: an unchanged state (now_ms
		// aside) is sent again only with the heartbeat.
		same := last != nil && sameButTime(last, data)
		if !same || time.Since(lastSent) >= heartbeat {
			if sendEvent(w, fl, "object", data) != nil {
				return
			}
			last, lastSent = data, time.Now()
		}
		select {
		case <-r.Context().Done():
			return
		case <-d.stopped():
			return
		case <-tick.C:
		}
	}
}

// sameButTime compares two object states ignoring the times that move on
// by themselves.
func sameButTime(a, b []byte) bool {
	strip := func(data []byte) string {
		var m map[string]any
		if json.Unmarshal(data, &m) != nil {
			return string(data)
		}
		delete(m, "now_ms")
		var walk func(v any) any
		walk = func(v any) any {
			switch t := v.(type) {
			case map[string]any:
				for k := range t {
					switch k {
					case "ttl_ms", "held_for_ms", "stale_in_ms", "expires_in_ms", "refill_in_ms", "value_ttl_ms", "read_ttls_ms":
						delete(t, k)
					default:
						t[k] = walk(t[k])
					}
				}
			case []any:
				for i := range t {
					t[i] = walk(t[i])
				}
			}
			return v
		}
		out, _ := json.Marshal(walk(m))
		return string(out)
	}
	return strip(a) == strip(b)
}

// feed reads one state every interval while someone listens and hands the
// latest to every listener (a slow listener skips states, never blocks).
type feed struct {
	interval time.Duration
	read     func() *lsState

	mu      sync.Mutex
	subs    map[chan *lsState]struct{}
	last    *lsState
	running bool
}

func newFeed(interval time.Duration, read func() *lsState) *feed {
	return &feed{interval: interval, read: read, subs: map[chan *lsState]struct{}{}}
}

func (f *feed) subscribe() (<-chan *lsState, func()) {
	ch := make(chan *lsState, 1)
	f.mu.Lock()
	f.subs[ch] = struct{}{}
	if f.last != nil {
		ch <- f.last
	}
	if !f.running {
		f.running = true
		go f.run()
	}
	f.mu.Unlock()
	return ch, func() {
		f.mu.Lock()
		delete(f.subs, ch)
		f.mu.Unlock()
	}
}

func (f *feed) run() {
	tick := time.NewTicker(f.interval)
	defer tick.Stop()
	for {
		data := f.read()
		f.mu.Lock()
		if len(f.subs) == 0 {
			f.running, f.last = false, nil
			f.mu.Unlock()
			return
		}
		f.last = data
		for ch := range f.subs {
			select {
			case <-ch: // drop the state not yet taken
			default:
			}
			ch <- data
		}
		f.mu.Unlock()
		<-tick.C
	}
}
