// board.js: the customer pickup board for a TV at the café. Two columns, Preparing and Ready,
// each order by its short number and, for an app customer, an initial (never items, never
// names: the edge sends neither). An order moving to Ready is highlighted, with an optional
// chime; it leaves the board when picked up, cancelled or marked no-show. It applies the café's
// order events to its snapshot in order (live.js: never twice, never dropped).
"use strict";

(() => {
  const root = document.getElementById("root");
  const board = new Map(); // orderId → {number, label, column, since}
  let chime = false;
  let audio = null;
  window.board = board; // read by the browser test

  if (!Live.token()) return Live.signInForm(root, "Paste this café's kitchen token to show its pickup board.");

  const chimeButton = document.getElementById("chime");
  chimeButton.onclick = () => {
    chime = !chime;
    chimeButton.textContent = chime ? "Chime on" : "Chime off";
    if (chime && !audio) audio = new AudioContext();
  };

  function ring() {
    if (!chime || !audio) return;
    const now = audio.currentTime;
    for (const [i, freq] of [880, 1320].entries()) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + i * 0.25);
      gain.gain.exponentialRampToValueAtTime(0.3, now + i * 0.25 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.25 + 0.6);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + i * 0.25);
      osc.stop(now + i * 0.25 + 0.7);
    }
  }

  function render() {
    for (const column of ["preparing", "ready"]) {
      const list = document.getElementById(column);
      list.replaceChildren();
      for (const [orderId, entry] of board) {
        if (entry.column !== column) continue;
        const li = Live.el("li", "entry" + (column === "ready" && Date.now() - entry.since < 30000 ? " fresh" : ""));
        li.dataset.order = orderId;
        li.append(Live.el("span", "number", entry.number));
        if (entry.label) li.append(Live.el("span", "who", entry.label));
        list.append(li);
      }
    }
  }

  function put(orderId, number, label, column) {
    const was = board.get(orderId);
    if (!column) {
      board.delete(orderId);
      return;
    }
    const since = was && was.column === column ? was.since : Date.now();
    board.set(orderId, { number, label, column, since });
    if (column === "ready" && (!was || was.column !== "ready")) ring();
  }

  function columnOf(state) {
    if (state === "placed" || state === "accepted" || state === "preparing") return "preparing";
    if (state === "ready") return "ready";
    return null;
  }

  Live.run({
    query: "",
    async snapshot() {
      const snap = await Live.api("GET", "/v1/screens/pickup");
      board.clear();
      for (const o of snap.orders) board.set(o.orderId, { number: o.number, label: o.label, column: o.column, since: 0 });
      render();
      return snap.seq;
    },
    apply(event) {
      const d = event.data;
      if (!d || !event.type.startsWith("order.") || !d.state) return;
      put(d.orderId, d.number, d.label, columnOf(d.state));
      render();
    },
    refused(message) { Live.signInForm(root, "This token may not open this pickup board: " + message); },
  });
  setInterval(render, 5000);
})();
