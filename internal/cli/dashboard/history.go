package dashboard

import (
	"net/http"
	"time"

	"github.com/goredisson/redisson/internal/cli/history"
	"github.com/goredisson/redisson/internal/cli/ls"
)

// sparkSpan is how far back an overview row's sparkline reaches.
const sparkSpan = 5 * time.Minute

// history is the store of what the scans saw, made on first use.
func (d *dashboard) history() *history.Store {
	d.histOnce.Do(func() {
		pins := d.o.ls.Pins
		var pinned func(string) bool
		if len(pins) > 0 {
			pinned = func(name string) bool {
				for _, p := range pins {
					if name == p || ls.Glob(p, name) {
						return true
					}
				}
				return false
			}
		}
		d.hist = history.NewStore(d.o.historyObjects, pinned)
	})
	return d.hist
}

// startRecording keeps the shared scan running until shutdown when
// --record asks for it: the scan records every read in the history,
// whether or not a page listens.
func (d *dashboard) startRecording() {
	if !d.o.record {
		return
	}
	ch, cancel := d.lsFeed().subscribe()
	go func() {
		defer cancel()
		for {
			select {
			case <-ch:
			case <-d.stopped():
				return
			}
		}
	}()
}

// record keeps one scan in the history; a failed read keeps nothing, so
// that a Redis outage shows as a gap rather than as every object free.
func (d *dashboard) record(v LsView) {
	if v.Error != "" || v.Result == nil {
		return
	}
	d.history().Record(v.Objects, v.NowMs)
}

// HistoryView is what /api/history answers: the object's series and the
// hold age past which a hold is highlighted.
type HistoryView struct {
	history.View
	HoldWarnMs int64 `json:"hold_warn_ms"`
	IntervalMs int64 `json:"interval_ms"`
}

func (d *dashboard) apiHistory(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	if name == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "name is required"})
		return
	}
	writeJSON(w, http.StatusOK, HistoryView{View: d.history().Object(name, time.Now().UnixMilli()),
		HoldWarnMs: d.o.holdWarn.Milliseconds(), IntervalMs: d.o.interval.Milliseconds()})
}

// SparksView is what /api/sparks answers: the sparklines of the rows a
// page shows.
type SparksView struct {
	NowMs  int64                    `json:"now_ms"`
	SpanMs int64                    `json:"span_ms"`
	Sparks map[string]history.Spark `json:"sparks"`
}

// apiSparks answers the sparklines of the names asked (?name=a&name=b):
// a page asks for its visible rows only, so the overview's stream of
// changes carries none.
func (d *dashboard) apiSparks(w http.ResponseWriter, r *http.Request) {
	names := r.URL.Query()["name"]
	if len(names) > maxPageRows {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "too many names"})
		return
	}
	now := time.Now().UnixMilli()
	writeJSON(w, http.StatusOK, SparksView{NowMs: now, SpanMs: sparkSpan.Milliseconds(),
		Sparks: d.history().Sparks(names, now, sparkSpan.Milliseconds())})
}
