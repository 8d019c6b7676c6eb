// The list page: the ls table, live, with filter and sort.
"use strict";

(function () {
  let view = null, receivedAt = 0;
  let sortKey = "name", sortDir = 1;
  const previous = new Map(); // name -> row signature, to flash changes
  const filter = document.getElementById("filter");
  const kindSel = document.getElementById("kind");
  const heldBox = document.getElementById("held");
  const rows = document.getElementById("rows");

  // Restore the filter from the address (?q=&kind=&held=1).
  const params = new URLSearchParams(location.search);
  filter.value = params.get("q") || "";
  heldBox.checked = params.get("held") === "1";

  function holder(o) { return o.holders.length ? o.holders[0] : null; }
  function sortValue(o, key) {
    const h = holder(o);
    switch (key) {
      case "holder": return h ? (h.client ? h.client.program + h.client.host + h.client.pid : "~" + h.field) : "~~";
      case "held": return h && h.held_for_ms !== null ? h.held_for_ms : -1;
      case "ttl": return o.ttl_ms < 0 ? Infinity : o.ttl_ms;
      case "waiters": return (o.waiting || 0) + (o.waiter_connections || 0) || o.waiters;
      default: return String(o[key]).toLowerCase();
    }
  }
  function matches(o) {
    if (heldBox.checked && !o.held) return false;
    if (kindSel.value && o.kind !== kindSel.value) return false;
    const q = filter.value.trim().toLowerCase();
    if (!q) return true;
    const h = holder(o);
    const text = [o.name, o.kind, o.state, h ? h.field : "", h && h.client ? `${h.client.program} ${h.client.pid} ${h.client.host}${h.client.gone ? " gone" : ""}` : ""].join(" ").toLowerCase();
    return q.split(/\s+/).every((w) => text.includes(w));
  }
  function signature(o) {
    const h = holder(o);
    return [o.kind, o.state, R.waiters(o), o.holders.map((x) => x.field + x.holds).join(","), h && h.client ? h.client.pid + (h.client.gone ? " gone" : "") : ""].join("|");
  }

  function render() {
    if (!view) return;
    const kinds = [...new Set(view.objects.map((o) => o.kind))].sort();
    const chosen = kindSel.value || params.get("kind") || "";
    kindSel.replaceChildren(R.el("option", {value: ""}, "every kind"), ...kinds.map((k) => R.el("option", {value: k, selected: k === chosen}, k)));
    if (chosen && !kinds.includes(chosen)) kindSel.append(R.el("option", {value: chosen, selected: true}, chosen));

    const list = view.objects.filter(matches).sort((a, b) => {
      const x = sortValue(a, sortKey), y = sortValue(b, sortKey);
      return (x < y ? -1 : x > y ? 1 : a.name < b.name ? -1 : 1) * sortDir;
    });
    document.getElementById("summary").textContent =
      `${list.length} of ${view.objects.length} objects · ${view.scanned_keys} keys scanned`;
    const notes = document.getElementById("notes");
    notes.replaceChildren();
    if (view.error) notes.append(R.el("div", {class: "error"}, "Cannot read Redis: " + view.error));
    if (view.truncated) notes.append(R.el("div", {class: "note", id: "cut-note"}, `--max-keys ${view.max_keys} cut the scan: ${view.left_out_keys} of ${view.matched_keys} keys matching ${view.pattern} left out; held, waited-on and pinned objects are all listed. To see the others, restart with a higher --max-keys, a narrower --pattern, or --pin NAME.`));

    if (!list.length) {
      rows.replaceChildren(R.el("tr", {}, R.el("td", {colspan: 7, class: "empty"},
        view.objects.length ? "No object matches the filter." : "No Redisson object in this database.")));
      return;
    }
    const out = list.map((o) => {
      const h = holder(o);
      const sig = signature(o);
      const changed = previous.has(o.name) && previous.get(o.name) !== sig;
      previous.set(o.name, sig);
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
        R.el("td", {class: "num held-for", "data-base": h && h.held_for_ms !== null ? h.held_for_ms : "", "data-dir": "1"}, ""),
        R.el("td", {class: "num ttl", "data-base": o.ttl_ms >= 0 ? o.ttl_ms : "", "data-dir": "-1"}, ""),
        R.el("td", {class: "num waiters"}, R.waiters(o)));
    });
    rows.replaceChildren(...out);
    tick();
  }

  // tick moves the durations on between two states: TTLs count down,
  // hold times count up.
  function tick() {
    const elapsed = Date.now() - receivedAt;
    for (const td of rows.querySelectorAll("td[data-base]")) {
      const base = td.getAttribute("data-base");
      if (base === "") { td.textContent = "–"; continue; }
      const v = Number(base) + Number(td.getAttribute("data-dir")) * elapsed;
      td.textContent = R.dur(Math.max(v, 0));
    }
  }

  for (const th of document.querySelectorAll("th.sortable")) {
    th.addEventListener("click", () => {
      const key = th.getAttribute("data-key");
      sortDir = key === sortKey ? -sortDir : 1;
      sortKey = key;
      for (const o of document.querySelectorAll("th .arrow")) o.remove();
      th.append(R.el("span", {class: "arrow"}, sortDir > 0 ? "▲" : "▼"));
      render();
    });
  }
  const remember = () => {
    const p = new URLSearchParams();
    if (filter.value) p.set("q", filter.value);
    if (kindSel.value) p.set("kind", kindSel.value);
    if (heldBox.checked) p.set("held", "1");
    history.replaceState(null, "", p.toString() ? "?" + p : location.pathname);
    render();
  };
  filter.addEventListener("input", remember);
  kindSel.addEventListener("change", remember);
  heldBox.addEventListener("change", remember);

  R.header();
  R.stream("/events/ls", "ls", (data, at) => {
    view = data;
    receivedAt = at;
    render();
  });
  setInterval(tick, 250);
})();
