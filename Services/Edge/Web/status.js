// status.js: the operator's status page. Every process the edge reaches, as its `health` op
// answers: status and reasons, uptime, outbox pending, consumer lag per stream (the publisher's
// last seq less the consumer's cursor), dead letters, refusals, CPU (from the process's CPU time
// between two documents) and memory. The edge sends the whole document every 2 s; a cell whose
// value changed is highlighted, and the last change of a status, reason or count is named on top.
"use strict";

(() => {
  const root = document.getElementById("root");
  const ui = { previous: null, lastChange: null, rows: new Map() };
  window.statusPage = ui; // read by the browser test
  if (!Live.token()) return Live.signInForm(root, "Paste an operator's status token (cafectl tokens issue --kind operator).");
  document.getElementById("signout").onclick = Live.signOut;

  function duration(seconds) {
    const s = Math.floor(seconds);
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    return (h ? h + "h " : "") + String(m).padStart(h ? 2 : 1, "0") + "m " + String(s % 60).padStart(2, "0") + "s";
  }

  function key(p) { return p.service + " " + (p.endpoint || ""); }

  function number(value) { const n = Number(value); return Number.isFinite(n) ? n : 0; }

  // The consumer's lag on each stream it follows: cursor keys name the publisher and the stream.
  function lags(p, doc) {
    const out = [];
    const details = p.details || {};
    for (const [name, value] of Object.entries(details)) {
      if (!name.startsWith("cursor.")) continue;
      const what = name.slice(7);
      let last = null, stream = what;
      for (const other of doc.processes) {
        for (const [s, seq] of Object.entries(other.streams || {})) {
          if (what.includes(s) && (what.includes(other.service) || (other.instance && what.includes(other.instance)))) {
            last = (last || 0) + 0 + Math.max(0, seq - number(value));
            stream = s;
          }
        }
      }
      out.push(stream + " " + (last === null ? "@" + value : last));
    }
    return out.sort().join(", ") || "—";
  }

  function refusals(details) {
    let total = 0;
    for (const [name, value] of Object.entries(details || {})) if (/refused|rateLimited/.test(name)) total += number(value);
    return total;
  }

  function cells(p, doc, prev) {
    const d = p.details || {};
    let cpu = "—";
    const before = prev && prev.processes.find((q) => key(q) === key(p));
    if (before && before.details && d["process.cpuMicros"]) {
      const wall = (doc.at - prev.at) * 1000;
      if (wall > 0) cpu = (100 * (number(d["process.cpuMicros"]) - number(before.details["process.cpuMicros"])) / wall).toFixed(1) + "%";
    }
    return {
      process: p.service + (p.instance && p.instance !== p.service ? " · " + p.instance : ""),
      status: p.status + ((p.reasons || []).length ? " — " + p.reasons.join(", ") : ""),
      uptime: p.uptimeSeconds === undefined ? "—" : duration(p.uptimeSeconds),
      outbox: p.outboxPending === undefined ? "—" : String(p.outboxPending),
      lag: p.status === "unreachable" ? "—" : lags(p, doc),
      dead: d.deadLettered === undefined ? "—" : String(d.deadLettered),
      refusals: p.details ? String(refusals(d)) : "—",
      cpu,
      memory: d["process.residentBytes"] ? (number(d["process.residentBytes"]) / 1048576).toFixed(0) + " MB" : "—",
    };
  }

  const volatile = new Set(["uptime", "cpu", "memory"]);

  function render(doc) {
    const prev = ui.previous;
    const tbody = document.getElementById("rows");
    const seen = new Set();
    let problems = 0;
    for (const p of doc.processes) {
      const k = key(p);
      seen.add(k);
      const values = cells(p, doc, prev);
      let row = ui.rows.get(k);
      if (!row) {
        row = { tr: Live.el("tr"), tds: {}, values: {} };
        for (const name of Object.keys(values)) {
          row.tds[name] = Live.el("td", name === "process" ? "proc" : name === "status" ? "" : "n");
          row.tr.append(row.tds[name]);
        }
        tbody.append(row.tr);
        ui.rows.set(k, row);
      }
      if (p.status !== "ok") problems++;
      let named = false; // a row's first change (its status before its counts) is the one named
      for (const [name, value] of Object.entries(values)) {
        const td = row.tds[name];
        if (name === "status") {
          td.replaceChildren(Live.el("span", "st " + p.status, p.status));
          if ((p.reasons || []).length) td.append(Live.el("div", "reasons", p.reasons.join(", ")));
        } else {
          td.textContent = value;
        }
        const old = row.values[name];
        if (prev && old !== undefined && old !== value) {
          td.classList.add("changed");
          setTimeout(() => td.classList.remove("changed"), 1500);
          if (!volatile.has(name) && !named) {
            ui.lastChange = { row: k, text: values.process + ": " + name + " " + old + " → " + value, at: doc.at };
            named = true;
          }
        }
        row.values[name] = value;
      }
    }
    for (const [k, row] of ui.rows) {
      if (!seen.has(k)) { row.tr.remove(); ui.rows.delete(k); }
      row.tr.classList.toggle("last-change", !!ui.lastChange && ui.lastChange.row === k);
    }
    const summary = doc.processes.length + " processes · " + (problems ? problems + " not ok" : "all ok") + " · as of " + Live.clock(doc.at)
      + (ui.lastChange ? " · last change " + Live.clock(ui.lastChange.at) + ": " + ui.lastChange.text : "");
    document.getElementById("summary").textContent = summary;
    ui.previous = doc;
  }

  Live.run({
    stream: "/v1/screens/status/events",
    async snapshot() {
      const doc = await Live.api("GET", "/v1/screens/status");
      render(doc);
      return doc.seq;
    },
    apply(event) { if (event.data) render(event.data); },
    refused(message) { Live.signInForm(root, "This token may not open the status page: " + message); },
  });
})();
