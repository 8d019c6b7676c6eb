package dashboard

import (
	"context"
	"net/http"
	"time"

	"github.com/goredisson/redisson/internal/cli/ls"
	"github.com/goredisson/redisson/internal/cli/metrics"
)

// metrics serves the ls state in Prometheus text format (exposition
// format 0.0.4), bounded like ls by --max-keys.
func (d *dashboard) metrics(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(r.Context(), d.budget())
	defer cancel()
	res, err := ls.List(ctx, d.rdb, d.o.ls)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		metrics.Write(w, nil, time.Since(start), err, d.o.metrics)
		return
	}
	metrics.Write(w, res, time.Since(start), nil, d.o.metrics)
}
