// kitchen.js: the web kitchen display. Station views and the expediter, as the terminal screen
// has them: kitchen-display's own order (rush, overdue, fire before hold, customers here first),
// HOLD m:ss and FIRE, ticket timers in yellow and red, all-day counts, recall of the last 50
// bumped within 15 minutes, 86 and restore. Touch, or a bump bar (a keyboard): digits pick a
// ticket of the page, Enter bumps it, "-" recalls, arrows page. At most 20 tickets a page.
"use strict";

(() => {
  const perPage = 20;
  const root = document.getElementById("root");
  const params = new URLSearchParams(location.search);
  const ui = {
    view: params.get("station") || "all", page: 0, selected: null, digits: "", digitTimer: null,
    snapshot: null, receivedAt: 0, unavailable: new Map(), recallsOpen: false,
  };
  window.kds = ui; // read by the browser test

  if (!Live.token()) return Live.signInForm(root);
  document.getElementById("signout").onclick = Live.signOut;
  document.getElementById("recall").onclick = () => toggleRecalls();

  function say(text, bad) {
    const message = document.getElementById("message");
    message.textContent = text;
    message.className = "message" + (bad ? " bad" : "");
  }

  function mmss(seconds) {
    const s = Math.max(0, Math.round(seconds));
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  function elapsed() { return (Date.now() - ui.receivedAt) / 1000; }

  function stations() {
    const names = new Set();
    for (const t of (ui.snapshot ? ui.snapshot.done.tickets : [])) names.add(t.station);
    return [...names].sort();
  }

  // What the current view lists: station tickets (open ones, screen order) or whole orders.
  function items() {
    if (!ui.snapshot) return [];
    if (ui.view === "expediter") {
      return ui.snapshot.orders.orders.filter((o) => ["new", "inProgress", "ready"].includes(o.state)).map((o) => ({ kind: "order", o }));
    }
    return ui.snapshot.tickets.tickets
      .filter((t) => ui.view === "all" || t.station === ui.view)
      .filter((t) => t.state === "new" || t.state === "inProgress" || t.state === "cancelled")
      .map((t) => ({ kind: "ticket", t }));
  }

  function recallable() {
    if (!ui.snapshot) return [];
    const now = ui.snapshot.now + elapsed() * 1000;
    const window = ui.snapshot.recallWindowSeconds * 1000;
    return ui.snapshot.done.tickets
      .filter((t) => t.state === "ready" && t.bumpedAt && now - Date.parse(t.bumpedAt) <= window)
      .filter((t) => ui.view === "all" || ui.view === "expediter" || t.station === ui.view)
      .sort((a, b) => Date.parse(b.bumpedAt) - Date.parse(a.bumpedAt))
      .slice(0, ui.snapshot.recallLimit);
  }

  function number(orderId) {
    const body = orderId.includes("_") ? orderId.slice(orderId.indexOf("_") + 1) : orderId;
    return body.replace(/[^A-Za-z0-9]/g, "").slice(0, 4).toUpperCase();
  }

  function badges(card, x) {
    const row = Live.el("div", "badges");
    if (x.rush) row.append(Live.el("span", "badge rush", "RUSH"));
    if (x.overdue) row.append(Live.el("span", "badge overdue", "OVERDUE"));
    if (x.customerHere) row.append(Live.el("span", "badge here", "HERE"));
    else if (x.arriving) row.append(Live.el("span", "badge arriving", "ARRIVING"));
    card.append(row);
    return row;
  }

  function ticketCard(t, position) {
    const card = Live.el("article", "card " + (t.colour || "green") + (t.state === "cancelled" ? " cancelled" : ""));
    card.dataset.ticket = t.ticketId;
    const head = Live.el("header", "cardhead");
    head.append(Live.el("span", "pos", String(position)), Live.el("span", "num", "#" + number(t.orderId)),
      Live.el("span", "station", t.station), Live.el("span", "age", mmss((t.ageSeconds || 0) + elapsed())));
    card.append(head);
    const row = badges(card, t);
    if (t.state === "cancelled") row.append(Live.el("span", "badge overdue", "CANCELLED"));
    else if (t.state === "inProgress") row.append(Live.el("span", "badge started", "STARTED"));
    else if (t.firing === "hold") row.append(Live.el("span", "badge hold", "HOLD " + mmss((t.holdSeconds || 0) - elapsed())));
    else row.append(Live.el("span", "badge fire", "FIRE"));
    const lines = Live.el("ul", "lines");
    for (const line of t.lines) {
      const li = Live.el("li");
      li.append(Live.el("span", "line" + (ui.unavailable.get(line.itemId) === false ? " out" : ""), line.quantity + " × " + line.name));
      if (line.modifiers && line.modifiers.length) li.append(Live.el("div", "mods", line.modifiers.join(", ")));
      lines.append(li);
    }
    card.append(lines);
    const actions = Live.el("div", "actions");
    if (t.state === "new") actions.append(button("Start", () => act("start", t.ticketId)));
    if (t.state !== "cancelled") actions.append(button("Bump", () => act("bump", t.ticketId), "bump"));
    card.append(actions);
    return card;
  }

  function orderCard(o, position) {
    const card = Live.el("article", "card " + (o.colour || "green") + (o.state === "ready" ? " done" : ""));
    card.dataset.order = o.orderId;
    const head = Live.el("header", "cardhead");
    head.append(Live.el("span", "pos", String(position)), Live.el("span", "num", "#" + number(o.orderId)),
      Live.el("span", "station", o.state === "ready" ? "READY" : o.state === "inProgress" ? "in progress" : "new"),
      Live.el("span", "age", mmss(o.ageSeconds + elapsed())));
    card.append(head);
    badges(card, o);
    const lines = Live.el("ul", "lines expo");
    for (const t of o.tickets) {
      const li = Live.el("li", "station-row" + (t.state === "ready" ? " bumped" : ""));
      const status = t.state === "ready" ? "✓" : t.state === "inProgress" ? "STARTED" : t.firing === "hold" ? "HOLD " + mmss((t.holdSeconds || 0) - elapsed()) : "FIRE";
      li.append(Live.el("b", "", t.station), Live.el("span", "st-" + (t.state === "ready" ? "done" : t.firing || "fire"), status),
        Live.el("span", "items", t.lines.map((l) => l.quantity + "× " + l.name).join(", ")));
      lines.append(li);
    }
    card.append(lines);
    const actions = Live.el("div", "actions");
    actions.append(button(o.rush ? "Unrush" : "Rush", () => rush(o)));
    if (o.state !== "ready") actions.append(button("Bump all", () => bumpOrder(o), "bump"));
    card.append(actions);
    return card;
  }

  function button(text, action, cls) {
    const b = Live.el("button", "act " + (cls || ""), text);
    b.onclick = (e) => { e.stopPropagation(); action(); };
    return b;
  }

  function render() {
    const list = items();
    const pages = Math.max(1, Math.ceil(list.length / perPage));
    ui.page = Math.min(ui.page, pages - 1);
    const shown = list.slice(ui.page * perPage, ui.page * perPage + perPage);
    root.replaceChildren();
    if (!shown.length) root.append(Live.el("p", "empty", ui.snapshot ? "No open tickets" : "Loading…"));
    shown.forEach((item, i) => {
      const card = item.kind === "order" ? orderCard(item.o, i + 1) : ticketCard(item.t, i + 1);
      const key = item.kind === "order" ? item.o.orderId : item.t.ticketId;
      if (key === ui.selected) card.classList.add("selected");
      card.onclick = () => { ui.selected = key; render(); };
      root.append(card);
    });
    root.dataset.count = String(shown.length);
    document.getElementById("page").textContent = list.length + (list.length === 1 ? " ticket" : " tickets") + (pages > 1 ? " · page " + (ui.page + 1) + "/" + pages : "");
    document.getElementById("cafe").textContent = ui.snapshot ? ui.snapshot.cafeId : "";
    const views = document.getElementById("views");
    views.replaceChildren();
    for (const v of ["all", ...stations(), "expediter"]) {
      const b = Live.el("button", "view" + (v === ui.view ? " on" : ""), v === "all" ? "All stations" : v === "expediter" ? "Expediter" : v);
      b.onclick = () => { ui.view = v; ui.page = 0; ui.selected = null; render(); };
      views.append(b);
    }
    const counts = document.getElementById("counts");
    counts.replaceChildren(Live.el("span", "label", "All day"));
    for (const c of (ui.snapshot ? ui.snapshot.counts.counts : [])) {
      if (ui.view !== "all" && ui.view !== "expediter" && c.station !== ui.view) continue;
      counts.append(Live.el("span", "count", c.quantity + " " + c.name));
    }
    // 86: the selected ticket's items can be marked sold out; what is 86'd can be restored.
    const out = document.getElementById("unavailable");
    out.replaceChildren();
    const chosen = selectedItem();
    const names = new Map();
    for (const t of (ui.snapshot ? ui.snapshot.done.tickets : [])) for (const l of t.lines) if (l.itemId) names.set(l.itemId, l.name);
    if (chosen && chosen.kind === "ticket") {
      for (const line of chosen.t.lines) {
        if (!line.itemId || ui.unavailable.get(line.itemId) === false) continue;
        const b = Live.el("button", "mini", "86 " + line.name);
        b.onclick = () => setAvailable(line.itemId, false);
        out.append(b);
      }
    }
    for (const [itemId, available] of ui.unavailable) {
      if (available) continue;
      const b = Live.el("button", "mini restore", "86'd " + (names.get(itemId) || itemId) + " · restore");
      b.onclick = () => setAvailable(itemId, true);
      out.append(b);
    }
    if (ui.recallsOpen) renderRecalls();
  }

  function renderRecalls() {
    const aside = document.getElementById("recalls");
    aside.replaceChildren(Live.el("h2", "", "Recall (last " + (ui.snapshot ? ui.snapshot.recallLimit : 50) + ", 15 min)"));
    const list = recallable();
    if (!list.length) aside.append(Live.el("p", "", "Nothing bumped in the last 15 minutes"));
    for (const t of list) {
      const b = Live.el("button", "recallitem", "#" + number(t.orderId) + " " + t.station + " · bumped " + Live.clock(Date.parse(t.bumpedAt)));
      b.onclick = () => act("recall", t.ticketId);
      aside.append(b);
    }
    aside.hidden = false;
  }

  function toggleRecalls() {
    ui.recallsOpen = !ui.recallsOpen;
    document.getElementById("recalls").hidden = !ui.recallsOpen;
    render();
  }

  async function act(verb, ticketId) {
    try {
      await Live.api("POST", "/v1/kitchen/tickets/" + encodeURIComponent(ticketId) + "/" + verb);
      say(verb + " #" + number(ticketId) + " " + ticketId.split(":").pop());
      if (verb === "bump") ui.selected = null;
      live.reload();
    } catch (error) {
      say(verb + " refused: " + error.message, true);
    }
  }

  async function bumpOrder(o) {
    for (const t of o.tickets) if (t.state === "new" || t.state === "inProgress") await act("bump", t.ticketId);
  }

  async function rush(o) {
    try {
      await Live.api("PUT", "/v1/kitchen/orders/" + encodeURIComponent(o.orderId) + "/rush", { rush: !o.rush });
      live.reload();
    } catch (error) {
      say("rush refused: " + error.message, true);
    }
  }

  async function setAvailable(itemId, available) {
    try {
      await Live.api("PUT", "/v1/kitchen/items/" + encodeURIComponent(itemId) + "/availability", { available, reason: available ? undefined : "86 from the kitchen display" });
      ui.unavailable.set(itemId, available);
      say((available ? "restored " : "86'd ") + itemId);
      render();
    } catch (error) {
      say("86 refused: " + error.message, true);
    }
  }

  function selectedItem() {
    return items().find((item) => (item.kind === "order" ? item.o.orderId : item.t.ticketId) === ui.selected);
  }

  document.addEventListener("keydown", (e) => {
    if (e.target && e.target.tagName === "INPUT") return;
    const list = items();
    const pages = Math.max(1, Math.ceil(list.length / perPage));
    if (/^[0-9]$/.test(e.key)) {
      // Two digits typed within 0.8 s pick tickets 10–20; a pair naming no ticket starts over.
      const shown = Math.min(perPage, list.length - ui.page * perPage);
      ui.digits = ui.digits && Number(ui.digits + e.key) <= shown ? ui.digits + e.key : e.key;
      clearTimeout(ui.digitTimer);
      ui.digitTimer = setTimeout(() => { ui.digits = ""; }, 800);
      const item = list[ui.page * perPage + Number(ui.digits) - 1];
      if (item) ui.selected = item.kind === "order" ? item.o.orderId : item.t.ticketId;
      render();
    } else if (e.key === "Enter") {
      ui.digits = "";
      const item = selectedItem();
      if (!item) return say("pick a ticket first (its number)", true);
      if (item.kind === "order") bumpOrder(item.o); else act("bump", item.t.ticketId);
    } else if (e.key === "-" || e.key === "Subtract") {
      const last = recallable()[0];
      if (last) act("recall", last.ticketId); else say("nothing to recall", true);
    } else if (e.key === "ArrowRight" || e.key === "ArrowDown" || e.key === "PageDown") {
      ui.page = Math.min(pages - 1, ui.page + 1);
      render();
    } else if (e.key === "ArrowLeft" || e.key === "ArrowUp" || e.key === "PageUp") {
      ui.page = Math.max(0, ui.page - 1);
      render();
    } else {
      return;
    }
    e.preventDefault();
  });

  const live = Live.run({
    query: "",
    async snapshot() {
      const query = ui.view !== "all" && ui.view !== "expediter" ? "" : "";
      const snap = await Live.api("GET", "/v1/screens/kitchen" + query);
      ui.snapshot = snap;
      ui.receivedAt = Date.now();
      for (const itemId of snap.unavailable || []) if (!ui.unavailable.has(itemId)) ui.unavailable.set(itemId, false);
      render();
      return snap.seq;
    },
    apply(event) {
      if (event.type === "menu.availability" && event.data) ui.unavailable.set(event.data.itemId, event.data.available);
      // Tickets are kitchen-display's: any change at the café reads its views again.
      live.reload();
    },
    refused(message) { Live.signInForm(root, "This token may not open this kitchen display: " + message); },
  });
  setInterval(render, 1000);
})();
