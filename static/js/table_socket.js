/* A table socket's life, the same for the poker table page (table.js) and the live Showdown
 * page (showdown_live.js): docs/protocol.md "Versions and resync" and "Live Omaha Showdown".
 *
 * It connects with `?since=` the version the page shows, parses the frames and hands the page
 * its versioned frames (`update` at a poker table, `state` at a Showdown table) in order: one
 * that skips a version waits for the missing one (two server processes' frames may cross), then
 * the socket asks `resync` since the version shown and applies the answer's frames as if they
 * had come one by one. The wait follows what the page sees (`GapWait`): GAP_WAIT_MS at first, a
 * quarter more than the latest crossing it measured (decaying), at most GAP_WAIT_MAX_MS, so
 * that on a loaded room crossed frames fill their gaps instead of each costing a resync. It keeps the watchdog: two heartbeats of silence, or a
 * heartbeat of a version not shown after a grace, ask `resync`; a request unanswered after
 * ANSWER_MS drops the socket and opens a new one. It reconnects after a drop with a jittered
 * backoff, waits a minute after 4429, stops for good after 4401, 4403, 4404 and 4409 and at a
 * `table_closed` frame (a Sit & Go's table once it is over), and pings.
 * The page keeps what is its own: what the frames mean, the drawing, the buttons and the words
 * (the callbacks say when).
 *
 * The pages load this file before their own script (`window.tableSocket`); tests/js/ runs it
 * under node (`module.exports`) with a stand-in WebSocket.
 */
(function (root) {
  "use strict";

  const GAP_WAIT_MS = 50; // bench/mirror.py GapWait: the same waits
  const GAP_WAIT_MAX_MS = 1000;
  const ANSWER_MS = 5000; // a request not answered by then: the socket is dead
  const ASK_EVERY_MS = 2000; // the server refuses more than one snapshot a second
  const BEHIND_GRACE_MS = 1500; // a frame sent just before the heartbeat may still be coming
  const PING_MS = 25000;
  const WATCH_MS = 1000;
  const OPEN = 1; // WebSocket.OPEN
  const CLOSE_UNAUTHENTICATED = 4401;
  const CLOSE_EXCLUDED = 4403; // a time-out or self-exclusion (responsible gaming)
  const CLOSE_NO_TABLE = 4404;
  const CLOSE_SUPERSEDED = 4409; // the table opened in another tab or window
  // Too many sockets from this player to this table in the server's window (a minute): wait
  // the window out before one more try, instead of the usual quick backoff.
  const CLOSE_TOO_MANY_RECONNECTS = 4429;
  const TOO_MANY_RECONNECTS_WAIT_MS = 60000;
  const FINAL = [CLOSE_UNAUTHENTICATED, CLOSE_EXCLUDED, CLOSE_NO_TABLE, CLOSE_SUPERSEDED];

  /* The wait before reconnect number `retries` + 1: doubling from half a second up to 15 s,
   * a quarter more or less at random so that pages dropped together do not come back together. */
  function backoffMs(retries) {
    return Math.min(15000, 500 * 2 ** retries) * (0.75 + Math.random() * 0.5);
  }

  /* How long a gap waits for its missing version. A crossing is measured when the missing
   * frame comes: before the wait ran out (the gap filled itself), or after the page had asked
   * `resync` for it (the wait was too short). The wait is a quarter more than the largest
   * crossing seen lately (each measure lets the older ones count for a fifth less), kept between
   * GAP_WAIT_MS and GAP_WAIT_MAX_MS. */
  function GapWait() {
    let crossingMs = 0;
    return {
      get ms() {
        return Math.min(GAP_WAIT_MAX_MS, Math.max(GAP_WAIT_MS, Math.ceil(1.25 * crossingMs)));
      },
      observe(ms) {
        crossingMs = Math.max(ms, 0.8 * crossingMs);
      },
    };
  }

  /* A table's socket, not connected yet (`connect()`). `options`:
   * - `path`: the socket's path, "/ws/tables/7/";
   * - `node`: the front's name of the table owner's process (the page config's `ws_node`), sent
   *   as `?node=` so the front can route the socket there (docs/operations.md); dropped once a
   *   socket fails to open with it (that process may be gone: the front then chooses);
   * - `versioned`: the type of the frames numbered by the table's version ("update", "state");
   * - `shown()`: the version the page shows, null before its first snapshot;
   * - `on`: the page's callbacks, each optional:
   *   `frame(frame, asked)` every frame the socket does not keep to itself (the versioned ones
   *     in order, each once; a `snapshot`, `asked` when it answers the page's own request),
   *   `hello(frame)` after the socket's first answer was applied (a snapshot, or the resync of a
   *     page that reconnected) and after every snapshot,
   *   `connecting(again)` a socket opens, `again` after a drop,
   *   `offline(seconds)` dropped: the next try in about `seconds`,
   *   `tooMany(seconds)` closed with 4429: the next try in `seconds`,
   *   `closed(code)` closed with a FINAL code: no more tries. */
  function create(options) {
    const on = options.on || {};
    let socket = null;
    let stopped = false; // a final close or the page's `stop()`: no reconnect
    let retries = 0;
    let reconnectTimer = null;
    let pingTimer = null;
    let heartbeatMs = 0; // 0 until the first snapshot says; the server sends none: no watchdog
    let heardAt = 0; // when the table's group last reached this page
    let askedAt = 0; // when the page asked (resync, snapshot) and got no answer yet (0: none)
    let lastSnapshotAt = 0;
    let behindTimer = null;
    let gapTimer = null;
    const gapWait = GapWait();
    let gapOpenedAt = 0; // when a versioned frame first waited for a missing one (0: no gap)
    // The gap the page asked `resync` for, until its missing frames come late or the next gap
    // opens: when it opened and the last version it was missing.
    let askedGap = null;
    let replaying = false; // applying a resync's frames, which are not late arrivals
    const pending = new Map(); // version -> a versioned frame that came before the one it follows
    let node = options.node || "";

    function url() {
      const location = root.location;
      const scheme = location.protocol === "https:" ? "wss://" : "ws://";
      const since = options.shown();
      const query = [];
      if (node) query.push("node=" + encodeURIComponent(node));
      if (since !== null) query.push("since=" + since);
      return scheme + location.host + options.path + (query.length ? "?" + query.join("&") : "");
    }

    function connect() {
      if (stopped) return;
      clearTimeout(reconnectTimer);
      if (on.connecting) on.connecting(retries > 0);
      const ws = new root.WebSocket(url());
      socket = ws;
      let opened = false;
      ws.addEventListener("open", () => { opened = true; });
      ws.addEventListener("message", (event) => {
        if (ws !== socket) return; // a socket the watchdog gave up on
        let frame;
        try {
          frame = JSON.parse(event.data);
        } catch {
          return;
        }
        if (frame && typeof frame === "object") receive(frame);
      });
      ws.addEventListener("close", (event) => {
        if (!opened) node = ""; // the hinted process did not answer: let the front choose
        if (ws === socket) closed(event.code);
      });
    }

    function closed(code) {
      clearInterval(pingTimer);
      clearTimeout(behindTimer);
      behindTimer = null;
      socket = null;
      askedAt = 0;
      if (stopped) return;
      if (FINAL.includes(code)) {
        stop();
        if (on.closed) on.closed(code);
        return;
      }
      const wait = code === CLOSE_TOO_MANY_RECONNECTS
        ? TOO_MANY_RECONNECTS_WAIT_MS * (1 + Math.random() * 0.25)
        : backoffMs(retries);
      retries += 1;
      const callback = code === CLOSE_TOO_MANY_RECONNECTS ? on.tooMany : on.offline;
      if (callback) callback(Math.ceil(wait / 1000));
      reconnectTimer = setTimeout(connect, wait);
    }

    /* No more play on this page (the page says why): the socket closes and stays closed. */
    function stop() {
      stopped = true;
      clearTimeout(reconnectTimer);
      clearTimeout(gapTimer);
      clearTimeout(behindTimer);
      clearInterval(pingTimer);
      clearInterval(watchTimer);
      const last = socket;
      socket = null;
      if (last) last.close();
    }

    function open() {
      return socket !== null && socket.readyState === OPEN;
    }

    /* False when the socket is not open (the page says the frame was not sent). */
    function send(frame) {
      if (!open()) return false;
      socket.send(JSON.stringify(frame));
      return true;
    }

    function receive(frame) {
      switch (frame.type) {
        case "snapshot": {
          const asked = answered(frame);
          gapOpenedAt = 0; // a gap the snapshot covers filled no crossing
          askedGap = null;
          if (on.frame) on.frame(frame, asked);
          pendingApply();
          hello(frame);
          break;
        }
        case "resync":
          // The frames this page missed, in order (its own private parts among them), as if
          // they had come one by one; on connecting, with what a snapshot says besides.
          answered(frame);
          replaying = true;
          try {
            (frame.frames || []).forEach(receive);
          } finally {
            replaying = false;
          }
          pendingApply();
          if (frame.heartbeat_seconds !== undefined) hello(frame);
          break;
        case "heartbeat":
          heartbeat(frame);
          break;
        case "pong":
          break;
        case "table_closed":
          // The table closed for good (a Sit & Go is over): nothing more will come, so no
          // watchdog, no resync, no reconnect; the page says so (the server closes with 4404).
          stop();
          if (on.frame) on.frame(frame, false);
          break;
        case options.versioned:
          ordered(frame);
          break;
        default:
          if (on.frame) on.frame(frame, false);
      }
    }

    // ---------------------------------------------------------------- versions in order

    function ordered(frame) {
      heardAt = Date.now();
      // A missing frame the page asked `resync` for, coming after all: it crossed for longer
      // than the page waited.
      if (!replaying && askedGap && frame.version <= askedGap.upTo) {
        gapWait.observe(Date.now() - askedGap.openedAt);
        askedGap = null;
      }
      const shown = options.shown();
      if (shown === null || frame.version <= shown) return; // older than shown
      if (frame.version > shown + 1) {
        pending.set(frame.version, frame); // applied after the versions before it
      } else if (on.frame) {
        on.frame(frame, false);
      }
      pendingApply();
    }

    /* The frames that waited for the version shown now, in order; when one is still missing,
     * a `resync` if it has not come within the gap's wait (`GapWait`). */
    function pendingApply() {
      for (;;) {
        const shown = options.shown();
        if (shown === null) break;
        pending.forEach((_, version) => {
          if (version <= shown) pending.delete(version);
        });
        const next = pending.get(shown + 1);
        if (!next) break;
        pending.delete(next.version); // applied once, even if the page refuses it
        if (on.frame) on.frame(next, false);
      }
      if (!pending.size) {
        clearTimeout(gapTimer);
        gapTimer = null;
        if (gapOpenedAt && !replaying && !askedAt) gapWait.observe(Date.now() - gapOpenedAt);
        gapOpenedAt = 0;
      } else if (!gapTimer && !askedAt) {
        if (!gapOpenedAt) gapOpenedAt = Date.now();
        gapTimer = setTimeout(gapResync, gapWait.ms);
      }
    }

    // ---------------------------------------------------------------- the watchdog

    /* True if this snapshot or resync answers the page's request. */
    function answered(frame) {
      const asked = askedAt !== 0;
      askedAt = 0;
      clearTimeout(behindTimer);
      behindTimer = null;
      heardAt = Date.now();
      if (frame.heartbeat_seconds !== undefined) {
        heartbeatMs = (Number(frame.heartbeat_seconds) || 0) * 1000;
      }
      return asked;
    }

    function hello(frame) {
      retries = 0;
      clearInterval(pingTimer);
      pingTimer = setInterval(() => send({ type: "ping" }), PING_MS);
      if (on.hello) on.hello(frame);
    }

    /* A heartbeat of a version the page does not show: a frame was lost, unless it is still
     * on its way. */
    function heartbeat(frame) {
      heardAt = Date.now();
      const shown = options.shown();
      if (shown === null || !(frame.version > shown) || behindTimer) return;
      behindTimer = setTimeout(() => {
        behindTimer = null;
        const now = options.shown();
        if (now !== null && now < frame.version) askResync();
      }, BEHIND_GRACE_MS);
    }

    /* The gap's wait ran out: ask for the missing frames, and remember the gap, so that they
     * measure the crossing if they still come. */
    function gapResync() {
      gapTimer = null;
      const shown = options.shown();
      if (shown === null || !pending.size) return;
      askedGap = { openedAt: gapOpenedAt || Date.now(), upTo: Math.min(...pending.keys()) - 1 };
      gapOpenedAt = 0;
      askResync();
    }

    /* The frames after the version shown, from the server's log of the table's last frames (a
     * snapshot instead when they are gone). */
    function askResync() {
      gapTimer = null;
      const since = options.shown();
      if (!open() || askedAt || since === null) return;
      askedAt = Date.now();
      socket.send(JSON.stringify({ type: "resync", since: since }));
    }

    /* The whole state again (the page cannot apply what came). */
    function askSnapshot() {
      const now = Date.now();
      if (!open() || askedAt || now - lastSnapshotAt < ASK_EVERY_MS) return;
      askedAt = lastSnapshotAt = now;
      socket.send(JSON.stringify({ type: "snapshot" }));
    }

    /* A socket can stay open and miss frames (Redis restarting, a frame lost on the way): one
     * that hears nothing through the table's group for two heartbeats asks for what it missed;
     * one that does not answer a request is dropped and a new one opened. */
    function watch() {
      if (!open() || !heartbeatMs) return;
      const now = Date.now();
      if (askedAt && now - askedAt > ANSWER_MS) {
        const dead = socket;
        closed(1006); // forgets `dead` and reconnects as after any drop
        dead.close();
      } else if (now - heardAt > 2 * heartbeatMs + 2000) {
        askResync();
      }
    }

    const watchTimer = setInterval(watch, WATCH_MS);
    if (typeof root.addEventListener === "function") {
      root.addEventListener("online", () => {
        if (!socket && !stopped) connect();
      });
    }

    return {
      connect: connect,
      send: send,
      stop: stop,
      askSnapshot: askSnapshot,
      /* Whether the page still plays (no final close, no `stop()`). */
      get stopped() { return stopped; },
      /* Versioned frames that wait for a missing version. */
      get pending() { return pending.size; },
      /* How long the next gap waits for its missing version, in ms. */
      get gapWaitMs() { return gapWait.ms; },
    };
  }

  const api = {
    GAP_WAIT_MS: GAP_WAIT_MS,
    GAP_WAIT_MAX_MS: GAP_WAIT_MAX_MS,
    ANSWER_MS: ANSWER_MS,
    BEHIND_GRACE_MS: BEHIND_GRACE_MS,
    CLOSE_UNAUTHENTICATED: CLOSE_UNAUTHENTICATED,
    CLOSE_EXCLUDED: CLOSE_EXCLUDED,
    CLOSE_NO_TABLE: CLOSE_NO_TABLE,
    CLOSE_SUPERSEDED: CLOSE_SUPERSEDED,
    CLOSE_TOO_MANY_RECONNECTS: CLOSE_TOO_MANY_RECONNECTS,
    create: create,
  };
  if (typeof module === "object" && module.exports) {
    module.exports = api;
  } else {
    root.tableSocket = api;
  }
})(typeof window !== "undefined" ? window : globalThis);
