// History and pictures: the object page's charts of the last 15 minutes,
// the list's sparklines, and the mark on holds older than --hold-warn.
// Every picture is an SVG built here (the pages allow no inline code).
"use strict";

(function () {
  const ns = "http://www.w3.org/2000/svg";
  const svgEl = (tag, attrs) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    return e;
  };
  R.hist = {warnMs: 0};
  const sparks = new Map(); // name -> {t, v}
  let sparkNow = 0, sparkSpan = 300000;

  // holdWarn marks a row whose hold has lasted past --hold-warn, with a
  // class and a note in its cell tag (colour alone says nothing to some).
  R.holdWarn = function (tr, heldMs, tag) {
    if (!tr || !tag) return;
    const old = R.hist.warnMs > 0 && heldMs !== null && heldMs > R.hist.warnMs;
    tr.classList.toggle("old-hold", old);
    let note = tag.querySelector(".old-hold-note");
    if (old && !note) {
      note = R.el("span", {class: "old-hold-note", title: "held longer than --hold-warn"}, "⚠ held over " + R.dur(R.hist.warnMs));
      tag.append(note);
    } else if (!old && note) note.remove();
  };

  // sparkCell is a list row's sparkline cell, drawn from what was fetched.
  R.sparkCell = function (name) {
    const td = R.el("td", {class: "spark", "data-name": name});
    drawSpark(td);
    return td;
  };

  function drawSpark(td) {
    const s = sparks.get(td.getAttribute("data-name"));
    td.replaceChildren();
    if (!s || !s.t.length) { td.append(R.el("span", {class: "muted"}, "–")); return; }
    const W = 100, H = 20, most = Math.max(1, ...s.v);
    // From the first read kept (at least 15 s ago) to now.
    const sp = Math.min(sparkSpan, Math.max(15000, sparkNow - s.t[0]));
    const x = (t) => (W * (t - (sparkNow - sp)) / sp).toFixed(1);
    const y = (v) => (H - 2 - (H - 4) * v / most).toFixed(1);
    const svg = svgEl("svg", {class: "sparkline", viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", "data-points": s.t.length});
    svg.append(svgEl("polyline", {class: "spark-line", points: s.t.map((t, i) => x(t) + "," + y(s.v[i])).join(" ")}));
    const title = svgEl("title");
    title.textContent = `holders + waiters over the last ${R.dur(sp)}: now ${s.v[s.v.length - 1]}, at most ${most}`;
    svg.append(title);
    td.append(svg);
  }

  // loadSparks fetches the sparklines of the rows on screen and draws them.
  R.loadSparks = async function (names, rows) {
    if (!names.length) return;
    const p = new URLSearchParams();
    for (const n of names) p.append("name", n);
    try {
      const res = await fetch("/api/sparks?" + p);
      if (!res.ok) return;
      const data = await res.json();
      sparkNow = data.now_ms;
      sparkSpan = data.span_ms;
      for (const n of names) {
        if (data.sparks[n]) sparks.set(n, data.sparks[n]); else sparks.delete(n);
      }
      for (const td of rows.querySelectorAll("td.spark")) drawSpark(td);
    } catch (e) { /* the next refresh tries again */ }
  };

  // span is the time the charts show: from the first read kept (at least
  // 30 s, at most the window) to now, so a young history is legible.
  const span = (view) => Math.min(view.window_ms, Math.max(30000, view.t.length ? view.now_ms - view.t[0] : 0));

  // chart draws one figure of an object's history: time runs from span
  // ago (left) to now (right), 0 at the bottom.
  function chart(view, line) {
    const W = 600, H = 90, sp = span(view), start = view.now_ms - sp;
    const pts = [];
    view.t.forEach((t, i) => { if (line.values[i] !== null) pts.push([t, line.values[i]]); });
    const ms = line.unit === "ms";
    const most = Math.max(1, ...pts.map((p) => p[1]), ms && R.hist.warnMs ? R.hist.warnMs : 0);
    const x = (t) => (W * (t - start) / sp).toFixed(1);
    const y = (v) => (H - 3 - (H - 8) * v / most).toFixed(1);
    const svg = svgEl("svg", {class: "hist-chart", viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none",
      "data-key": line.key});
    for (const f of [1 / 3, 2 / 3]) svg.append(svgEl("line", {x1: W * f, y1: 0, x2: W * f, y2: H, class: "grid"}));
    svg.append(svgEl("line", {x1: 0, y1: H - 0.5, x2: W, y2: H - 0.5, class: "axis"}));
    if (ms && R.hist.warnMs) {
      svg.append(svgEl("line", {x1: 0, y1: y(R.hist.warnMs), x2: W, y2: y(R.hist.warnMs), class: "warn-line"}));
    }
    // data-t0/t1 name the reads drawn, first and last (what a check compares).
    if (pts.length) {
      svg.append(svgEl("polyline", {class: "hist-line", points: pts.map((p) => x(p[0]) + "," + y(p[1])).join(" "),
        "data-t0": pts[0][0], "data-t1": pts[pts.length - 1][0]}));
      // A dot per read while they are few enough to tell apart.
      if (pts.length <= 60) for (const p of pts) svg.append(svgEl("path", {class: "hist-dot", d: `M${x(p[0])},${y(p[1])}h0`}));
    }
    const fmt = (v) => ms ? R.dur(v) : String(v);
    const last = pts.length ? fmt(pts[pts.length - 1][1]) : "–";
    return R.el("div", {class: "hist", "data-key": line.key},
      R.el("div", {class: "hist-head"}, R.el("span", {class: "hist-label"}, line.label),
        R.el("span", {class: "muted"}, `now ${last} · most ${fmt(Math.max(0, ...pts.map((p) => p[1])))}`)),
      svg,
      R.el("div", {class: "chart-legend"}, R.el("span", {}, "−" + R.dur(sp)),
        R.el("span", {}, "a line every " + R.dur(sp / 3)), R.el("span", {}, "now")));
  }

  function renderHistory(box, view) {
    if (!view.tracked || !view.t.length) {
      box.replaceChildren(R.el("div", {class: "card"}, R.el("h2", {}, `History: the last ${Math.round(view.window_ms / 60000)} minutes at most`),
        R.el("p", {class: "muted"}, view.tracked ? "No read yet." :
          "No history of this object: the dashboard keeps it while a page is open, for the objects within --history-objects.")));
      return;
    }
    box.replaceChildren(R.el("div", {class: "card", id: "history-card"},
      R.el("h2", {}, `History: the last ${Math.round(view.window_ms / 60000)} minutes at most`),
      R.el("p", {class: "sub"}, `${view.t.length} reads kept; reads past the last ${R.dur(120 * (view.interval_ms || 1000))} are merged into 10s steps that keep the peaks.`),
      R.el("div", {class: "hist-grid"}, view.lines.map((l) => chart(view, l)))));
  }

  // The object page fetches its history once per few reads.
  const box = document.getElementById("history");
  const cfg = fetch("/api/config").then((r) => r.json()).then((c) => { R.hist.warnMs = c.hold_warn_ms || 0; return c; }).catch(() => ({}));
  if (box) {
    const name = new URLSearchParams(location.search).get("name") || "";
    const load = async () => {
      try {
        const res = await fetch("/api/history?name=" + encodeURIComponent(name));
        if (res.ok) renderHistory(box, await res.json());
      } catch (e) { /* the next refresh tries again */ }
    };
    cfg.then((c) => {
      load();
      setInterval(load, Math.max(2000, 2 * (c.interval_ms || 1000)));
    });
  }
})();
