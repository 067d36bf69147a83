// live.js: what every screen shares. A page starts from a snapshot with a sequence number, then
// reads the café's events in order over server-sent events (fetch with the bearer token, since an
// EventSource cannot send one), resuming with Last-Event-ID after the last id it applied. The edge
// writes a heartbeat every second; 3 s without one (or a dropped stream) shows
// "disconnected since HH:MM:SS" and reconnects with a backoff from 1 to 30 s. The banner goes
// when the stream is back and has delivered what was missed (the next heartbeat comes after it).
// An event id already applied is skipped; a jump in ids, or the edge's `reset`, reloads the snapshot,
// and so does the first heartbeat of each new stream (what was published while it opened).
"use strict";

const Live = (() => {
  const tokenKey = "campus-cafe.screen-token";

  // The bearer token: from the page's fragment (#token=…, never sent to a server), kept in this
  // browser's storage; or asked for with a form.
  function token() {
    const hash = new URLSearchParams(location.hash.slice(1));
    const given = hash.get("token");
    if (given) {
      localStorage.setItem(tokenKey, given);
      hash.delete("token");
      history.replaceState(null, "", location.pathname + location.search + (hash.toString() ? "#" + hash : ""));
    }
    return localStorage.getItem(tokenKey);
  }

  function signInForm(root, message) {
    root.replaceChildren();
    const form = el("form", "signin");
    form.append(el("h1", "", "Sign in"), el("p", "", message || "Paste this café's kitchen token (cafectl tokens issue --kind kitchen)."));
    const input = el("input");
    input.type = "password";
    input.autocomplete = "off";
    input.placeholder = "cct_…";
    const button = el("button", "big", "Open");
    form.append(input, button);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      if (input.value.trim()) {
        localStorage.setItem(tokenKey, input.value.trim());
        location.reload();
      }
    });
    root.append(form);
    input.focus();
  }

  function signOut() {
    localStorage.removeItem(tokenKey);
    location.reload();
  }

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  async function api(method, path, body) {
    const headers = { Authorization: "Bearer " + token() };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store" });
    const text = await response.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch (_) { json = null; }
    if (!response.ok) {
      const error = new Error((json && (json.detail || json.title)) || response.statusText);
      error.status = response.status;
      error.code = json && json.code;
      throw error;
    }
    return json;
  }

  function clock(ms) {
    const d = new Date(ms);
    return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
  }

  // Splits a text/event-stream into events: {id, event, data}.
  function parser(onEvent) {
    let buffer = "";
    return (chunk) => {
      buffer += chunk;
      let end;
      while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
        const event = { id: null, event: "message", data: [] };
        let any = false;
        for (const line of block.split(/\r?\n/)) {
          if (line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "id") event.id = value;
          else if (field === "event") event.event = value;
          else if (field === "data") event.data.push(value);
          else continue;
          any = true;
        }
        if (any) onEvent({ id: event.id, event: event.event, data: event.data.join("\n") });
      }
    };
  }

  // Runs a screen: options.snapshot() loads and renders the snapshot and returns its seq;
  // options.apply(event) applies one event; options.query is the stream's query string.
  function run(options) {
    const banner = document.getElementById("banner");
    const state = {
      seq: 0, lastHeartbeat: Date.now(), down: false, since: null, backoff: 1000,
      controller: null, attemptStarted: 0, retryTimer: null, reloading: null,
    };
    window.liveState = state; // read by the browser test

    function showBanner() {
      if (!state.down) {
        state.down = true;
        state.since = state.lastHeartbeat;
      }
      banner.textContent = "disconnected since " + clock(state.since) + " — reconnecting";
      banner.hidden = false;
      document.body.classList.add("stale");
    }

    function hideBanner() {
      state.down = false;
      state.since = null;
      banner.hidden = true;
      document.body.classList.remove("stale");
    }

    // One snapshot read at a time; a change while one is being read reads it again after.
    async function reload() {
      if (state.reloading) {
        state.again = true;
        return state.reloading;
      }
      state.reloading = (async () => {
        try {
          do {
            state.again = false;
            const seq = await options.snapshot();
            if (seq > state.seq || state.seq === 0) state.seq = seq;
          } while (state.again);
        } finally {
          state.reloading = null;
        }
      })();
      return state.reloading;
    }

    function handle(event) {
      if (event.event === "heartbeat") {
        state.lastHeartbeat = Date.now();
        state.backoff = 1000;
        if (state.fresh) {
          // The first heartbeat of a new stream: Pushpin holds it now. An event published while
          // the edge was opening it (after it read the journal, before Pushpin held the stream)
          // never reaches this stream, but it is in the snapshot: read it once more.
          state.fresh = false;
          reload();
          return;
        }
        if (state.down && !state.reloading) hideBanner();
        return;
      }
      if (event.event === "reset") {
        state.seq = 0;
        reload();
        return;
      }
      const id = Number(event.id);
      if (!Number.isSafeInteger(id) || id <= state.seq) return; // already applied: never twice
      if (id !== state.seq + 1) {
        // A gap the stream did not fill: start again from a snapshot.
        reload();
        return;
      }
      state.seq = id;
      let data = null;
      try { data = JSON.parse(event.data); } catch (_) { data = null; }
      options.apply({ id, type: event.event, data });
    }

    function reconnect() {
      if (state.controller) state.controller.abort();
      state.controller = null;
      clearTimeout(state.retryTimer);
      const wait = state.backoff;
      state.backoff = Math.min(30000, state.backoff * 2);
      state.retryTimer = setTimeout(connect, wait);
    }

    async function connect() {
      const controller = new AbortController();
      state.controller = controller;
      state.attemptStarted = Date.now();
      try {
        if (state.seq === 0) await reload();
        const headers = { Authorization: "Bearer " + token(), Accept: "text/event-stream" };
        if (state.seq > 0) headers["Last-Event-ID"] = String(state.seq);
        const response = await fetch((options.stream || "/v1/screens/events") + (options.query || ""), { headers, signal: controller.signal, cache: "no-store" });
        if (response.status === 401 || response.status === 403) {
          const problem = await response.json().catch(() => ({}));
          options.refused(problem.detail || "this token may not open this screen");
          controller.abort();
          return;
        }
        if (!response.ok || !response.body) throw new Error("stream answered " + response.status);
        state.fresh = true;
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        const feed = parser(handle);
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          feed(decoder.decode(value, { stream: true }));
        }
        throw new Error("stream ended");
      } catch (error) {
        if (state.controller !== controller) return; // replaced by the watchdog
        if (error && error.status === 401) return options.refused(error.message);
        if (error && error.status === 403) return options.refused(error.message);
        showBanner();
        reconnect();
      }
    }

    // The watchdog: no heartbeat for 3 s means the stream is stale, whatever the socket says.
    setInterval(() => {
      const now = Date.now();
      if (now - state.lastHeartbeat > 3000) {
        showBanner();
        if (state.controller && now - state.attemptStarted > 3000) reconnect();
      }
    }, 500);

    connect();
    return { reload, state };
  }

  return { token, signInForm, signOut, api, el, clock, run, parser };
})();
