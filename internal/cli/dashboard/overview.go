package dashboard

import (
	"encoding/json"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/goredisson/redisson/internal/cli/ls"
	"github.com/goredisson/redisson/internal/cli/objinfo"
)

// lsState is one read of the list, prepared once for every viewer: each
// row's JSON, what the filter searches and what the sort compares.
type lsState struct {
	view LsView
	rows []lsRow
	// kinds are the kinds present, sorted, for the page's kind menu.
	kinds []string

	fullOnce sync.Once
	full     []byte
}

// lsRow is one object of a state.
type lsRow struct {
	name string
	obj  *ls.Object
	now  int64
	// The JSON is made only for the rows some page shows (see encode).
	once sync.Once
	json []byte
	// sig is the row's JSON without the durations that move on by
	// themselves; deadline and since are the instants those durations
	// point at, which stay put while nothing happens.
	sig      string
	deadline int64
	since    []int64
	// text is what the filter's words are looked for in, lower case.
	text      string
	lname     string
	holderKey string
	heldFor   int64
	ttl       float64
}

func newLsState(v LsView) *lsState { return nextLsState(v, nil) }

// nextLsState is newLsState reusing what prev worked out of the objects
// the scanner did not read again (both lists are in name order).
func nextLsState(v LsView, prev *lsState) *lsState {
	s := &lsState{view: v, rows: make([]lsRow, len(v.Objects))}
	kinds := map[string]bool{}
	j := 0
	for i := range v.Objects {
		o := &v.Objects[i]
		for prev != nil && j < len(prev.rows) && prev.rows[j].name < o.Name {
			j++
		}
		if prev != nil && j < len(prev.rows) && prev.rows[j].name == o.Name && o.Reading() != 0 && prev.rows[j].obj.Reading() == o.Reading() {
			s.rows[i].reuse(&prev.rows[j], o, v.NowMs)
		} else {
			s.rows[i].init(o, v.NowMs)
		}
		kinds[o.Kind] = true
	}
	for k := range kinds {
		s.kinds = append(s.kinds, k)
	}
	slices.Sort(s.kinds)
	if s.kinds == nil {
		s.kinds = []string{}
	}
	return s
}

func (r *lsRow) init(o *ls.Object, now int64) {
	r.name, r.obj, r.now, r.lname, r.heldFor, r.ttl, r.deadline = o.Name, o, now, strings.ToLower(o.Name), -1, math.Inf(1), -1
	if o.TTLms >= 0 {
		r.deadline = now + o.TTLms
		r.ttl = float64(o.TTLms)
	}
	words := []string{o.Name, o.Kind, o.State}
	r.holderKey = "~~"
	if len(o.Holders) > 0 {
		h := o.Holders[0]
		words = append(words, h.Field)
		r.holderKey = "~" + h.Field
		if h.Client != nil {
			words = append(words, h.Client.Program+" "+strconv.Itoa(h.Client.PID)+" "+h.Client.Host)
			r.holderKey = h.Client.Program + h.Client.Host + strconv.Itoa(h.Client.PID)
		}
		if h.HeldForMs != nil {
			r.heldFor = *h.HeldForMs
		}
	}
	for _, h := range o.Holders {
		if h.Client != nil && h.Client.Gone {
			words = append(words, "gone") // as the page marks the holder
			break
		}
	}
	r.text = strings.ToLower(strings.Join(words, " "))
}

// reuse is init from p, a row of the same reading of the object.
func (r *lsRow) reuse(p *lsRow, o *ls.Object, now int64) {
	r.name, r.obj, r.now, r.lname, r.heldFor, r.ttl, r.deadline = o.Name, o, now, p.lname, p.heldFor, math.Inf(1), -1
	if o.TTLms >= 0 {
		r.deadline = now + o.TTLms
		r.ttl = float64(o.TTLms)
	}
	r.text, r.holderKey = p.text, p.holderKey
}

// encode makes the row's JSON and signature, once, when a page shows it:
// a state is read every interval and most rows are on no page.
func (r *lsRow) encode() {
	r.once.Do(func() {
		r.json, _ = json.Marshal(r.obj)
		still := *r.obj
		still.TTLms = 0
		still.Holders = slices.Clone(r.obj.Holders)
		for i := range still.Holders {
			if h := still.Holders[i].HeldForMs; h != nil {
				r.since = append(r.since, r.now-*h)
				still.Holders[i].HeldForMs = nil
			}
			still.Holders[i].Client = steadyClient(still.Holders[i].Client)
		}
		sig, _ := json.Marshal(still)
		r.sig = string(sig)
	})
}

// steadyClient is c without what moves on while nothing changes: how
// long ago it was seen, and when, unless it is gone (then when stays).
func steadyClient(c *objinfo.ClientInfo) *objinfo.ClientInfo {
	if c == nil {
		return nil
	}
	cc := *c
	cc.SeenAgoMs = 0
	if !cc.Gone {
		cc.SeenMs = 0
	}
	return &cc
}

// fullJSON is the whole state, as /events/ls sends it.
func (s *lsState) fullJSON() []byte {
	s.fullOnce.Do(func() { s.full, _ = json.Marshal(s.view) })
	return s.full
}

// viewQuery is what one overview page shows: its filter, its sort and
// the slice of the sorted rows it renders.
type viewQuery struct {
	words  []string
	kind   string
	held   bool
	sort   string
	desc   bool
	offset int
	limit  int
}

// Page sizes of the overview: what a page shows when it does not say,
// and the most it may ask for.
const (
	defaultPageRows = 200
	maxPageRows     = 1000
)

func parseViewQuery(v url.Values) viewQuery {
	q := viewQuery{
		words: strings.Fields(strings.ToLower(v.Get("q"))),
		kind:  v.Get("kind"),
		held:  v.Get("held") == "1",
		sort:  v.Get("sort"),
		desc:  v.Get("dir") == "desc",
		limit: defaultPageRows,
	}
	switch q.sort {
	case "name", "kind", "state", "holder", "held", "ttl", "waiters":
	default:
		q.sort = "name"
	}
	if n, err := strconv.Atoi(v.Get("offset")); err == nil && n > 0 {
		q.offset = n
	}
	if n, err := strconv.Atoi(v.Get("limit")); err == nil && n > 0 {
		q.limit = min(n, maxPageRows)
	}
	return q
}

func (q viewQuery) match(r *lsRow) bool {
	if q.held && !r.obj.Held {
		return false
	}
	if q.kind != "" && r.obj.Kind != q.kind {
		return false
	}
	for _, w := range q.words {
		if !strings.Contains(r.text, w) {
			return false
		}
	}
	return true
}

// less orders two rows by the query's key, then by name, as the page did
// when it sorted by itself.
func (q viewQuery) less(a, b *lsRow) int {
	c := 0
	switch q.sort {
	case "kind":
		c = strings.Compare(strings.ToLower(a.obj.Kind), strings.ToLower(b.obj.Kind))
	case "state":
		c = strings.Compare(strings.ToLower(a.obj.State), strings.ToLower(b.obj.State))
	case "holder":
		c = strings.Compare(a.holderKey, b.holderKey)
	case "held":
		c = cmpNum(float64(a.heldFor), float64(b.heldFor))
	case "ttl":
		c = cmpNum(a.ttl, b.ttl)
	case "waiters":
		c = cmpNum(float64(a.obj.Waiters), float64(b.obj.Waiters))
	default:
		c = strings.Compare(a.lname, b.lname)
	}
	if c == 0 {
		c = strings.Compare(a.name, b.name)
	}
	if q.desc {
		c = -c
	}
	return c
}

func cmpNum(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// selectRows returns the rows of the query's page, in order, and how many
// rows match the filter in all.
func (s *lsState) selectRows(q viewQuery) ([]*lsRow, int) {
	var hits []*lsRow
	for i := range s.rows {
		if q.match(&s.rows[i]) {
			hits = append(hits, &s.rows[i])
		}
	}
	if !slices.IsSortedFunc(hits, q.less) { // the usual order is the scan's
		slices.SortFunc(hits, q.less)
	}
	lo := min(q.offset, len(hits))
	hi := min(lo+q.limit, len(hits))
	return hits[lo:hi], len(hits)
}

// overviewEvent is what the overview's stream sends: a snapshot of the
// page's rows first, then only what changed, keyed by object name.
type overviewEvent struct {
	NowMs       int64    `json:"now_ms"`
	Total       int      `json:"total"`
	Matched     int      `json:"matched"`
	Offset      int      `json:"offset"`
	Limit       int      `json:"limit"`
	Pattern     string   `json:"pattern"`
	ScannedKeys int      `json:"scanned_keys"`
	MaxKeys     int      `json:"max_keys"`
	Truncated   bool     `json:"truncated"`
	MatchedKeys int      `json:"matched_keys"`
	LeftOutKeys int      `json:"left_out_keys"`
	Error       string   `json:"error,omitempty"`
	Kinds       []string `json:"kinds"`
	// Order names the page's rows in order; left out when unchanged.
	Order []string `json:"order,omitempty"`
	// Upsert holds the rows added to the page or changed.
	Upsert map[string]json.RawMessage `json:"upsert,omitempty"`
	// Remove names the rows that left the page.
	Remove []string `json:"remove,omitempty"`
}

// sentRow is what a viewer was last sent of one row.
type sentRow struct {
	sig      string
	deadline int64
	since    []int64
}

// drift is how far the instant a duration points at may move (the reads'
// own jitter) before the row is sent again.
const drift = 500

func (s sentRow) same(r *lsRow) bool {
	if s.sig != r.sig || len(s.since) != len(r.since) || (s.deadline < 0) != (r.deadline < 0) || abs(s.deadline-r.deadline) > drift {
		return false
	}
	for i := range s.since {
		if abs(s.since[i]-r.since[i]) > drift {
			return false
		}
	}
	return true
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// viewer is one overview page's stream: what it asked for and what it
// was sent.
type viewer struct {
	q      viewQuery
	sent   map[string]sentRow
	order  []string
	header string
}

func newViewer(q viewQuery) *viewer { return &viewer{q: q} }

// next is the event that brings the page from what it was sent to s: the
// snapshot the first time, then the changes; nil when nothing changed.
func (v *viewer) next(s *lsState) (string, *overviewEvent) {
	page, matched := s.selectRows(v.q)
	ev := &overviewEvent{Total: len(s.rows), Matched: matched, Offset: v.q.offset, Limit: v.q.limit,
		ScannedKeys: s.view.ScannedKeys, MaxKeys: s.view.MaxKeys, Truncated: s.view.Truncated,
		MatchedKeys: s.view.MatchedKeys, LeftOutKeys: s.view.LeftOut, Error: s.view.Error, Kinds: s.kinds}
	if s.view.Result != nil {
		ev.Pattern = s.view.Pattern
	}
	head, _ := json.Marshal(ev)
	ev.NowMs = s.view.NowMs
	first := v.sent == nil
	order := make([]string, len(page))
	sent := make(map[string]sentRow, len(page))
	upsert := map[string]json.RawMessage{}
	for i, r := range page {
		order[i] = r.name
		r.encode()
		old, had := v.sent[r.name]
		if !had || !old.same(r) {
			upsert[r.name] = r.json
			old = sentRow{sig: r.sig, deadline: r.deadline, since: r.since}
		}
		sent[r.name] = old
	}
	for name := range v.sent {
		if _, ok := sent[name]; !ok {
			ev.Remove = append(ev.Remove, name)
		}
	}
	slices.Sort(ev.Remove)
	if len(upsert) > 0 {
		ev.Upsert = upsert
	}
	if first || !slices.Equal(order, v.order) {
		ev.Order = order
	}
	changed := first || ev.Order != nil || ev.Upsert != nil || ev.Remove != nil || string(head) != v.header
	v.sent, v.order, v.header = sent, order, string(head)
	if first {
		return "snapshot", ev
	}
	if !changed {
		return "", nil
	}
	return "diff", ev
}
