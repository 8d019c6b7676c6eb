package main

import (
	"context"
	"net/http"
	"time"
)

// metrics serves the ls state in Prometheus text format (exposition
// format 0.0.4), bounded like ls by --max-keys.
func (d *dashboard) metrics(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(r.Context(), d.budget())
	defer cancel()
	res, err := ls(ctx, d.rdb, d.o.ls)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		writeMetrics(w, nil, time.Since(start), err)
		return
	}
	writeMetrics(w, res, time.Since(start), nil)
}
