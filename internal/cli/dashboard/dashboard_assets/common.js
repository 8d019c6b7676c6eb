// Shared helpers of the dashboard's pages: formatting, the live stream,
// the header.
"use strict";

const R = {};

// el builds an element: el("td", {class: "name"}, "text", child, ...).
R.el = function (tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
};

// dur formats milliseconds as Go does, to a tenth of a second: 1h2m3s, 4.5s, 120ms.
R.dur = function (ms) {
  if (ms === null || ms === undefined) return "–";
  const neg = ms < 0;
  ms = Math.abs(ms);
  let s;
  if (ms < 1000) s = Math.round(ms) + "ms";
  else if (ms < 60000) s = (ms / 1000).toFixed(1).replace(/\.0$/, "") + "s";
  else {
    const h = Math.floor(ms / 3600000), m = Math.floor(ms % 3600000 / 60000), sec = Math.floor(ms % 60000 / 1000);
    s = (h ? h + "h" : "") + (h || m ? m + "m" : "") + sec + "s";
  }
  return (neg ? "-" : "") + s;
};

R.kindClass = (kind) => "badge k-" + String(kind).replace(/[^a-z]+/gi, "-").toLowerCase();

// who renders a holder's or waiter's client: program, pid, host, and the
// owner field below; or the unknown-client text.
R.who = function (field, client, extra) {
  const box = R.el("div", {class: "who"});
  if (client) {
    box.append(R.el("span", {class: "host"}, `${client.program} · pid ${client.pid} · ${client.host}`));
    if (client.gone) box.append(R.gone(client));
  } else {
    box.append(R.el("span", {class: "unknown"}, "unknown client (Java, or registration off)"));
  }
  box.append(R.el("span", {class: "id"}, field + (extra ? "  " + extra : "")));
  return box;
};

// gone marks a client that stopped refreshing its record (died, or lost
// Redis): how long ago it was last seen, and when by its clock.
R.gone = function (client) {
  const at = new Date(client.seen_ms).toISOString().replace(/\.\d+Z$/, "Z");
  return R.el("span", {class: "gone", title: "its registration record has not been refreshed for two refresh periods"},
    `gone · not seen for ${R.dur(client.seen_ago_ms)} (since ${at})`);
};

// waiters is an object's waiters: goroutines where the clients' records
// count them, "N conn" for subscribed connections no record accounts for
// (Java clients).
R.waiters = function (o) {
  const g = o.waiting || 0, c = o.waiter_connections || 0;
  if (!g && !c) return String(o.waiters);
  if (!c) return String(g);
  return (g ? g + " + " : "") + c + " conn";
};

// post sends a write with the anti-forgery header the server wants (a page
// of another site cannot send it); a token travels in the cookie.
R.post = async function (path, body) {
  const res = await fetch(path, {
    method: "POST",
    headers: {"Content-Type": "application/json", "X-Redisson-Dashboard": "1"},
    body: JSON.stringify(body),
  });
  let data = {};
  try { data = await res.json(); } catch (e) { data = {message: res.statusText}; }
  if (!res.ok || !data.ok) throw new Error(data.message || res.statusText);
  return data.message;
};

R.toast = function (text, bad) {
  const t = R.el("div", {class: "toast" + (bad ? " bad" : ""), role: "status"}, text);
  document.body.append(t);
  setTimeout(() => t.remove(), 4000);
};

// confirm shows a confirmation dialog and resolves true on Confirm.
R.confirm = function (title, text, action) {
  return new Promise((resolve) => {
    const d = R.el("dialog", {id: "confirm"},
      R.el("h3", {}, title), R.el("p", {}, text),
      R.el("div", {class: "buttons"},
        R.el("button", {id: "confirm-cancel", onclick: () => { d.close(); resolve(false); }}, "Cancel"),
        R.el("button", {id: "confirm-ok", class: "primary", onclick: () => { d.close(); resolve(true); }}, action)));
    d.addEventListener("close", () => d.remove());
    document.body.append(d);
    d.showModal();
  });
};

// header fills in the top bar from /api/config and returns the config.
R.header = async function () {
  const cfg = await (await fetch("/api/config")).json();
  document.getElementById("where").textContent = "Redis " + cfg.redis + (cfg.pattern !== "*" ? "  ·  " + cfg.pattern : "");
  const mode = document.getElementById("mode");
  mode.textContent = cfg.allow_writes ? "writes allowed" : "read-only";
  if (cfg.allow_writes) mode.classList.add("writes");
  const v = document.getElementById("version");
  if (v) v.textContent = cfg.version + " · refreshed every " + R.dur(cfg.interval_ms);
  return cfg;
};

// stream opens an event stream and calls onData with each event's JSON;
// the live marker in the header says whether it is connected.
R.stream = function (url, event, onData) {
  const live = document.getElementById("live"), text = document.getElementById("live-text");
  const es = new EventSource(url);
  es.addEventListener(event, (e) => {
    live.className = "live on";
    text.textContent = "live";
    onData(JSON.parse(e.data), Date.now());
  });
  es.onerror = () => {
    live.className = "live off";
    text.textContent = "reconnecting…";
  };
  return es;
};
