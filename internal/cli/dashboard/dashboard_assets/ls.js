// The list page: the ls table, live. The server filters, sorts and pages
// (/events/overview?q=&kind=&held=&sort=&dir=&offset=): the stream sends
// the page's rows once, then only the rows added, changed or removed, and
// the page touches only those rows.
"use strict";

(function () {
  let sortKey = "name", sortDir = 1, offset = 0, limit = 200;
  let es = null, head = null, kindsShown = "";
  let order = [];
  const trs = new Map(); // name -> the row's <tr>
  const filter = document.getElementById("filter");
  const kindSel = document.getElementById("kind");
  const heldBox = document.getElementById("held");
  const rows = document.getElementById("rows");
  const live = document.getElementById("live"), liveText = document.getElementById("live-text");

  // Restore the filter from the address (?q=&kind=&held=1).
  const params = new URLSearchParams(location.search);
  filter.value = params.get("q") || "";
  heldBox.checked = params.get("held") === "1";
  let kindWanted = params.get("kind") || "";

  function row(o, at, changed) {
    const h = o.holders.length ? o.holders[0] : null;
    let who = R.el("span", {class: "muted"}, "–");
    if (h) {
      who = R.who(h.field + " ×" + h.holds + (h.mode === "write" ? " write" : h.mode === "permits" ? " permits" : ""), h.client,
        o.holders.length > 1 ? `(+${o.holders.length - 1} more)` : "");
    }
    const stateClass = o.held ? "state-held" : /^free/.test(o.state) ? "state-free" : "";
    return R.el("tr", {"data-name": o.name, class: changed ? "changed" : null},
      R.el("td", {class: "name"}, R.el("a", {href: "/object?name=" + encodeURIComponent(o.name)}, o.name)),
      R.el("td", {}, R.el("span", {class: R.kindClass(o.kind)}, o.kind)),
      R.el("td", {class: stateClass}, o.state),
      R.el("td", {class: "holder"}, who),
      R.el("td", {class: "num held-for", "data-base": h && h.held_for_ms !== null ? h.held_for_ms : "", "data-at": at, "data-dir": "1"}, ""),
      R.el("td", {class: "num ttl", "data-base": o.ttl_ms >= 0 ? o.ttl_ms : "", "data-at": at, "data-dir": "-1"}, ""),
      R.el("td", {class: "num waiters"}, R.waiters(o)),
      R.sparkCell(o.name));
  }

  function renderHead() {
    const kinds = head.kinds.join(",") + "|" + kindWanted;
    if (kinds !== kindsShown) {
      kindsShown = kinds;
      kindSel.replaceChildren(R.el("option", {value: ""}, "every kind"),
        ...head.kinds.map((k) => R.el("option", {value: k, selected: k === kindWanted}, k)));
      if (kindWanted && !head.kinds.includes(kindWanted)) kindSel.append(R.el("option", {value: kindWanted, selected: true}, kindWanted));
    }
    document.getElementById("summary").textContent =
      `${head.matched} of ${head.total} objects · ${head.scanned_keys} keys scanned`;
    const notes = document.getElementById("notes");
    notes.replaceChildren();
    if (head.error) notes.append(R.el("div", {class: "error"}, "Cannot read Redis: " + head.error));
    if (head.truncated) notes.append(R.el("div", {class: "note", id: "cut-note"}, `--max-keys ${head.max_keys} cut the scan: ${head.left_out_keys} of ${head.matched_keys} keys matching ${head.pattern} left out; held, waited-on and pinned objects are all listed. To see the others, restart with a higher --max-keys, a narrower --pattern, or --pin NAME.`));
    const pager = document.getElementById("pager");
    pager.hidden = head.matched <= head.limit && head.offset === 0;
    document.getElementById("range").textContent = head.matched
      ? `rows ${head.offset + 1}–${Math.min(head.offset + head.limit, head.matched)} of ${head.matched}` : "no rows";
    document.getElementById("prev").disabled = head.offset === 0;
    document.getElementById("next").disabled = head.offset + head.limit >= head.matched;
  }

  // apply brings the table to an event: rows removed, rows added or
  // changed rebuilt, and the rows put in order only when it changed.
  function apply(ev, snapshot) {
    head = ev;
    const at = Date.now();
    if (snapshot) {
      trs.clear();
      order = [];
    }
    for (const name of ev.remove || []) {
      const tr = trs.get(name);
      if (tr) tr.remove();
      trs.delete(name);
    }
    for (const [name, o] of Object.entries(ev.upsert || {})) {
      const old = trs.get(name);
      const tr = row(o, at, !snapshot && old !== undefined);
      if (old) old.replaceWith(tr);
      trs.set(name, tr);
    }
    if (snapshot || ev.order) order = ev.order || [];
    renderHead();
    if (!order.length) {
      rows.replaceChildren(R.el("tr", {}, R.el("td", {colspan: 8, class: "empty"},
        head.total ? "No object matches the filter." : "No Redisson object in this database.")));
    } else if (snapshot || ev.order || rows.children.length !== order.length || ev.upsert) {
      const want = order.map((n) => trs.get(n));
      if (rows.children.length !== want.length || want.some((tr, i) => rows.children[i] !== tr)) rows.replaceChildren(...want);
    }
    if (snapshot || ev.order) R.loadSparks(order, rows);
    tick();
  }

  // tick moves the durations of the shown rows on between two events:
  // TTLs count down, hold times count up.
  function tick() {
    const now = Date.now();
    for (const td of rows.querySelectorAll("td[data-base]")) {
      const base = td.getAttribute("data-base");
      if (base === "") { td.textContent = "–"; continue; }
      const v = Number(base) + Number(td.getAttribute("data-dir")) * (now - Number(td.getAttribute("data-at")));
      td.textContent = R.dur(Math.max(v, 0));
      if (td.classList.contains("held-for")) R.holdWarn(td.parentElement, v, td.parentElement.querySelector("td.holder"));
    }
  }

  // connect (re)opens the stream for the current filter, sort and page.
  function connect() {
    if (es) es.close();
    const p = new URLSearchParams();
    if (filter.value.trim()) p.set("q", filter.value);
    if (kindWanted) p.set("kind", kindWanted);
    if (heldBox.checked) p.set("held", "1");
    p.set("sort", sortKey);
    if (sortDir < 0) p.set("dir", "desc");
    p.set("offset", offset);
    p.set("limit", limit);
    es = new EventSource("/events/overview?" + p);
    const on = (snapshot) => (e) => {
      live.className = "live on";
      liveText.textContent = "live";
      apply(JSON.parse(e.data), snapshot);
    };
    es.addEventListener("snapshot", on(true));
    es.addEventListener("diff", on(false));
    es.onerror = () => {
      live.className = "live off";
      liveText.textContent = "reconnecting…";
    };
  }

  for (const th of document.querySelectorAll("th.sortable")) {
    th.addEventListener("click", () => {
      const key = th.getAttribute("data-key");
      sortDir = key === sortKey ? -sortDir : 1;
      sortKey = key;
      offset = 0;
      for (const o of document.querySelectorAll("th .arrow")) o.remove();
      th.append(R.el("span", {class: "arrow"}, sortDir > 0 ? "▲" : "▼"));
      connect();
    });
  }
  const remember = () => {
    kindWanted = kindSel.value;
    const p = new URLSearchParams();
    if (filter.value) p.set("q", filter.value);
    if (kindWanted) p.set("kind", kindWanted);
    if (heldBox.checked) p.set("held", "1");
    history.replaceState(null, "", p.toString() ? "?" + p : location.pathname);
    offset = 0;
    connect();
  };
  filter.addEventListener("input", remember);
  kindSel.addEventListener("change", remember);
  heldBox.addEventListener("change", remember);
  document.getElementById("prev").addEventListener("click", () => { offset = Math.max(0, offset - limit); connect(); });
  document.getElementById("next").addEventListener("click", () => { offset += limit; connect(); });

  R.header();
  connect();
  setInterval(tick, 250);
  // The sparklines of the rows on screen move on with the history.
  setInterval(() => R.loadSparks(order, rows), 5000);
})();
