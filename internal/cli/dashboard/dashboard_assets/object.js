// The object page: one object's state, live, and (with --allow-writes)
// its actions.
"use strict";

(function () {
  const name = new URLSearchParams(location.search).get("name") || "";
  document.getElementById("name").textContent = name;
  document.title = name + " · redisson dashboard";
  const body = document.getElementById("body");
  let cfg = {allow_writes: false};
  let view = null, receivedAt = 0;
  const lockKinds = ["lock", "fair lock", "read-write lock", "spin lock", "non-reentrant lock", "non-reentrant fair lock"];
  const permitKinds = ["semaphore", "permit-expirable semaphore", "atomiclong", "semaphore or latch"];
  let permitsN = null; // what the user typed, kept across redraws

  // A duration that moves on by itself: dir -1 counts down, +1 up.
  const moving = (ms, dir, cls) => R.el("span", {class: "moving " + (cls || ""), "data-base": ms === null || ms === undefined ? "" : ms, "data-dir": dir}, "");

  function stat(label, value, small) {
    return R.el("div", {class: "stat"}, R.el("div", {class: "label"}, label),
      R.el("div", {class: "value" + (small ? " small" : "")}, value));
  }
  function section(title, ...children) {
    return R.el("div", {class: "card"}, R.el("h2", {}, title), ...children);
  }
  function table(head, rows, numeric) {
    return R.el("table", {},
      R.el("thead", {}, R.el("tr", {}, head.map((h, i) => R.el("th", {class: numeric && numeric.includes(i) ? "num" : null}, h)))),
      R.el("tbody", {}, rows.map((r) => R.el("tr", {}, r.map((c, i) => R.el("td", {class: numeric && numeric.includes(i) ? "num" : null}, c))))));
  }

  function ttlValue(ms) {
    if (ms === -1) return R.el("span", {class: "muted"}, "no expiry");
    if (ms === -2) return R.el("span", {class: "muted"}, "no key");
    return moving(ms, -1);
  }

  // readTTLs is one cell with a read holder's hold TTLs: "4.9s, 29.9s".
  function readTTLs(ttls) {
    return R.el("span", {class: "read-ttls"}, ...ttls.flatMap((t, i) => [i ? ", " : null, ttlValue(t)]));
  }

  // queueEntry says what happens to a fair-lock queue entry as Redisson
  // runs it: at its timeout the entry goes stale; a stale entry is
  // dropped when it reaches the head, and its waiter, still waiting,
  // queues again at the tail.
  function queueEntry(q) {
    if (q.stale_in_ms === null) return R.el("span", {class: "muted"}, "no timeout");
    const what = "Redisson drops a stale entry when it reaches the head; the waiter, if it still waits, queues again at the tail";
    if (q.stale) return R.el("span", {class: "stale", title: what}, "stale: re-queued at the tail if still waiting");
    return R.el("span", {title: what}, "stale in ", moving(q.stale_in_ms, -1), ", then re-queued");
  }

  function chart(rl, grants) {
    const W = 600, H = 110;
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("class", "chart");
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.setAttribute("preserveAspectRatio", "none");
    svg.setAttribute("data-interval", rl.interval_ms);
    svg.setAttribute("data-grants", JSON.stringify(grants));
    const most = Math.max(1, ...grants.map((g) => g.permits));
    const legend = R.el("div", {class: "chart-legend"},
      R.el("span", {}, "−" + R.dur(rl.interval_ms)),
      R.el("span", {}, `each bar is one grant; the tallest is ${most} permit${most === 1 ? "" : "s"}`),
      R.el("span", {}, "now"));
    const box = R.el("div", {class: "chart-box"}, svg, legend);
    drawChart(svg);
    return box;
  }
  // drawChart places each grant of the last interval by its age: the
  // right edge is now, the left edge one interval ago; heights are
  // relative to the largest grant.
  function drawChart(svg) {
    const W = 600, H = 110;
    const interval = Number(svg.getAttribute("data-interval"));
    const grants = JSON.parse(svg.getAttribute("data-grants"));
    const most = Math.max(1, ...grants.map((g) => g.permits));
    const now = view.now_ms + (Date.now() - receivedAt);
    const ns = "http://www.w3.org/2000/svg";
    const mk = (tag, attrs) => { const e = document.createElementNS(ns, tag); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); return e; };
    svg.replaceChildren();
    for (const f of [0.25, 0.5, 0.75]) svg.append(mk("line", {x1: W * f, y1: 0, x2: W * f, y2: H, class: "grid"}));
    svg.append(mk("line", {x1: 0, y1: H - 0.5, x2: W, y2: H - 0.5, class: "axis"}));
    const bw = Math.max(W / 100, 4);
    for (const g of grants) {
      const age = now - g.at_ms;
      if (age < 0 || age > interval) continue;
      const x = W - (age / interval) * W - bw;
      const h = Math.max((g.permits / most) * (H - 8), 3);
      svg.append(mk("rect", {x: Math.max(x, 0), y: H - h, width: bw, height: h, rx: 1.5, class: "bar"}));
    }
  }

  function actions(o) {
    if (!cfg.allow_writes) return null;
    const box = R.el("div", {class: "actions"});
    if (lockKinds.includes(o.kind)) {
      box.append(R.el("button", {class: "danger", id: "force-unlock", onclick: async () => {
        const who = o.holders.length ? `held by ${o.holders.length} owner(s)` : "not held";
        if (!await R.confirm(`Force-unlock ${o.name}?`, `The ${o.kind} is ${who}. Its key is deleted and one waiter is woken; the holder learns it lost the lock at its next renewal.`, "Force-unlock")) return;
        run("/api/force-unlock", {name: o.name});
      }}, "Force-unlock"));
    }
    if (permitKinds.includes(o.kind)) {
      const input = R.el("input", {type: "number", id: "permits-n", value: permitsN !== null ? permitsN : o.value !== null ? o.value : 1, step: 1,
        oninput: (e) => { permitsN = e.target.value; }});
      const act = (op) => async () => {
        const n = Number(input.value);
        const what = op === "set" ? `set the available permits of ${o.name} to ${n}` : `add ${n} permit(s) to ${o.name}`;
        if (!await R.confirm(`${op === "set" ? "Set" : "Add"} permits?`, `This will ${what}; waiters are woken as Redisson does.`, op === "set" ? "Set permits" : "Add permits")) return;
        run("/api/permits", {name: o.name, op, n});
      };
      box.append(R.el("span", {class: "muted"}, "permits"), input,
        R.el("button", {id: "permits-set", onclick: act("set")}, "Set"),
        R.el("button", {id: "permits-add", onclick: act("add")}, "Add"));
    }
    if (o.keys && o.keys.length) {
      box.append(R.el("button", {class: "danger", id: "delete", onclick: async () => {
        if (!await R.confirm(`Delete ${o.name}?`, `Deletes its ${o.keys.length} key(s): ${o.keys.map((k) => k.key).join(", ")}. Holders lose their hold and waiters are not woken.`, "Delete")) return;
        run("/api/delete", {name: o.name});
      }}, "Delete"));
    }
    return box.children.length ? section("Actions", box) : null;
  }

  async function run(path, req) {
    try {
      R.toast(await R.post(path, req));
    } catch (e) {
      R.toast(e.message, true);
    }
  }

  function render() {
    const o = view;
    const notes = document.getElementById("notes");
    notes.replaceChildren();
    if (o.error) notes.append(R.el("div", {class: "error"}, "Cannot read Redis: " + o.error));
    const kindLine = document.getElementById("kind-line");
    kindLine.replaceChildren(...[R.el("span", {class: R.kindClass(o.kind)}, o.kind || "?"),
      o.type && o.type !== "none" ? R.el("span", {class: "muted"}, "  Redis " + o.type) : null,
      o.alternatives && o.alternatives.length ? R.el("span", {class: "muted"}, "  · may also be: " + o.alternatives.join(", ")) : null].filter(Boolean));
    const parts = [];

    const stats = R.el("div", {class: "grid"});
    stats.append(stat("TTL", ttlValue(o.ttl_ms)));
    const isLock = lockKinds.includes(o.kind);
    if (isLock) stats.append(stat("Holders", (o.holders || []).length));
    if (o.mode) stats.append(stat("Mode", o.mode));
    // A cache's, counter's or probabilistic object's figures, as inspect reads them.
    if (o.cache) for (const [k, v] of Object.entries(o.cache)) if (v !== null && v !== "") stats.append(stat(k.replaceAll("_", " "), v));
    if (o.kind === "fair lock" || o.kind === "non-reentrant fair lock" || (o.queue && o.queue.length)) stats.append(stat("Queue", o.queue.length));
    if (o.value !== null && o.value !== undefined) {
      const label = {"semaphore": "Permits", "permit-expirable semaphore": "Available permits", "count-down latch": "Count"}[o.kind] || "Value";
      stats.append(stat(label, o.value));
    }
    if (o.kind === "permit-expirable semaphore") {
      // As the overview counts them: an expired permit is held by nobody.
      const expired = o.permits.filter((p) => p.expired).length;
      stats.append(stat("Acquired", o.permits.length - expired));
      if (expired) stats.append(stat("Expired", expired));
    }
    if (o.fencing_token !== null && o.fencing_token !== undefined) stats.append(stat("Fencing token", o.fencing_token));
    if (!["bucket", "rate limiter", "map"].includes(o.kind)) stats.append(stat("Waiters", R.waiters(o)));
    parts.push(stats);

    const acts = actions(o);
    if (acts) parts.push(acts);

    if (isLock) {
      parts.push(section("Holders", o.holders.length ? table(["Client", "Holds", "Mode", "Held for", "Read holds expire in"],
        o.holders.map((h) => [R.who(h.field, h.client), h.holds, h.mode,
          h.held_for_ms !== null ? moving(h.held_for_ms, 1, "hold-age") : R.el("span", {class: "muted"}, "–"),
          h.read_ttls_ms ? readTTLs(h.read_ttls_ms) : R.el("span", {class: "muted"}, "–")]), [1, 3])
        : R.el("p", {class: "muted"}, "Nobody holds it.")));
    }
    if (o.queue && o.queue.length) {
      parts.push(section("Queue (head first; Redis order)", R.el("ol", {class: "queue", id: "queue"}, o.queue.map((q) =>
        R.el("li", {"data-field": q.field}, R.el("div", {class: "grow"}, R.who(q.field, q.client)),
          queueEntry(q))))));
    }
    if (o.kind === "permit-expirable semaphore") {
      parts.push(section("Acquired permits", o.permits.length ? table(["Permit id", "Holder", "Expires in", "Expires at (UTC)"],
        o.permits.map((p) => [R.el("span", {class: "mono"}, p.id), p.client_id ? R.who(p.client_id, p.client) : R.el("span", {class: "muted"}, "not in a record"),
          p.expires_in_ms === null ? "no lease" : p.expired ? R.el("span", {class: "stale"}, "expired") : moving(p.expires_in_ms, -1),
          p.expires_ms === null ? "–" : new Date(p.expires_ms).toISOString()]), [2])
        : R.el("p", {class: "muted"}, "No permit acquired.")));
    }
    if (o.permit_holders && o.permit_holders.length) {
      parts.push(section("Permit holders (from their records)", table(["Client", "Permits"],
        o.permit_holders.map((h) => [R.who(h.client_id, h.client), h.permits]), [1])));
    }
    if (o.group_values && o.group_values.length) {
      parts.push(section("Values held", table(["Value id", "Client", "Holds", "Expires in"],
        o.group_values.map((g) => [R.el("span", {class: "mono"}, g.field), R.who(g.client_id ? g.client_id + ":" + g.owner_id : "?", g.client),
          g.holds, g.expires_in_ms === null ? "–" : g.expired ? R.el("span", {class: "stale"}, "expired") : moving(g.expires_in_ms, -1)]), [2, 3])));
    }
    if (o.rate_limiter) {
      const rl = o.rate_limiter;
      const wins = rl.windows.map((w, i) => {
        const g = (o.grants[i] || {grants: []}).grants;
        return R.el("div", {class: "card"},
          R.el("h2", {}, w.client_id ? "Window of client " + w.client_id : "Shared window"),
          R.el("div", {class: "grid"}, stat("Available", w.available), stat("Used", w.used), stat("Grants in window", w.grants),
            stat("Oldest leaves in", w.refill_in_ms === null ? "–" : moving(w.refill_in_ms, -1), true)),
          chart(rl, g));
      });
      parts.push(section(`Rate: ${rl.rate} permits per ${R.dur(rl.interval_ms)} (${rl.type})` +
        (rl.keep_alive_ms ? `, keys kept ${R.dur(rl.keep_alive_ms)} after the last use` : ""),
      wins.length ? wins : R.el("p", {class: "muted"}, "No window yet: nobody has acquired.")));
    }
    if (o.kind === "bucket") {
      parts.push(section(`Value (${o.codec}, ${o.size} bytes)`, R.el("pre", {class: "value"}, JSON.stringify(o.decoded, null, 2))));
    }
    if (o.channels && o.channels.length) {
      parts.push(section("Waiters on its channels", table(["Channel", "SUBSCRIBE", "SSUBSCRIBE"],
        o.channels.map((c) => [R.el("span", {class: "mono"}, c.channel), c.subscribers, c.shard_subscribers === null ? "n/a" : c.shard_subscribers]), [1, 2])));
    }
    if (o.keys && o.keys.length) {
      parts.push(section("Keys", table(["Key", "Type", "TTL"], o.keys.map((k) => [R.el("span", {class: "mono"}, k.key), k.type, ttlValue(k.ttl_ms)]), [2])));
    }
    body.replaceChildren(...parts);
    tick();
  }

  function tick() {
    if (!view) return;
    const elapsed = Date.now() - receivedAt;
    for (const s of body.querySelectorAll(".moving")) {
      const base = s.getAttribute("data-base");
      if (base === "") { s.textContent = "–"; continue; }
      s.textContent = R.dur(Math.max(Number(base) + Number(s.getAttribute("data-dir")) * elapsed, 0));
      if (s.classList.contains("hold-age")) {
        const tr = s.closest("tr");
        R.holdWarn(tr, Number(base) + elapsed, tr && tr.cells[0]);
      }
    }
    for (const svg of body.querySelectorAll("svg.chart")) drawChart(svg);
  }

  R.header().then((c) => { cfg = c; if (view) render(); });
  R.stream("/events/object?name=" + encodeURIComponent(name), "object", (data, at) => {
    view = data;
    receivedAt = at;
    render();
  });
  setInterval(tick, 250);
})();
