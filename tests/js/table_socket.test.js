/* static/js/table_socket.js, the socket's life the poker and live Showdown pages share
 * (docs/protocol.md "Versions and resync"), run under node with a stand-in WebSocket and node's
 * mock timers and clock: `node --test tests/js/` (make lint). */
"use strict";

const assert = require("node:assert/strict");
const { afterEach, beforeEach, mock, test } = require("node:test");
const tableSocket = require("../../static/js/table_socket.js");
const { createMirror } = require("../../static/js/table_state.js");
const { tableState, update } = require("./table_frames.js");

const { ANSWER_MS, BEHIND_GRACE_MS, GAP_WAIT_MS } = tableSocket;

/* What a browser's WebSocket does as far as the module sees it; `sockets` lists every one
 * opened, the newest last. The server's side: `accept()`, `receive(frame)`, `drop(code)`. */
let sockets = [];

class FakeSocket {
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    this.listeners = { open: [], message: [], close: [] };
    sockets.push(this);
  }

  addEventListener(type, listener) {
    this.listeners[type].push(listener);
  }

  send(data) {
    assert.equal(this.readyState, 1, "sent on a socket that is not open");
    this.sent.push(JSON.parse(data));
  }

  close() {
    this.drop(1005);
  }

  accept() {
    this.readyState = 1;
    this.listeners.open.forEach((listener) => listener({}));
  }

  receive(frame) {
    const data = typeof frame === "string" ? frame : JSON.stringify(frame);
    this.listeners.message.forEach((listener) => listener({ data: data }));
  }

  drop(code) {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.listeners.close.forEach((listener) => listener({ code: code }));
  }

  /* The frames of type `kind` the page sent on this socket. */
  sentOf(kind) {
    return this.sent.filter((frame) => frame.type === kind);
  }
}

beforeEach(() => {
  sockets = [];
  globalThis.WebSocket = FakeSocket;
  globalThis.location = { protocol: "https:", host: "room.test" };
  mock.timers.enable({ apis: ["setTimeout", "setInterval", "Date"], now: 1_000_000 });
  mock.method(Math, "random", () => 0.5); // no jitter unless a test says
});

let opened = [];

afterEach(() => {
  opened.forEach((socket) => socket.stop());
  opened = [];
  mock.timers.reset();
  mock.restoreAll();
});

const last = () => sockets[sockets.length - 1];

/* The poker page as far as the socket goes: the mirror of table_state.js composes the state,
 * `calls` records the callbacks in order. */
function pokerPage(node) {
  const mirror = createMirror();
  const calls = [];
  const socket = tableSocket.create({
    path: "/ws/tables/7/",
    node: node,
    versioned: "update",
    shown: () => mirror.since,
    on: {
      frame(frame, asked) {
        calls.push([frame.type, frame.version === undefined ? asked : frame.version]);
        if (frame.type === "snapshot") mirror.snapshot(frame.state);
        else if (frame.type === "private") mirror.private(frame);
        else if (frame.type === "update" && !mirror.update(frame)) socket.askSnapshot();
      },
      hello: (frame) => calls.push(["hello", frame.type]),
      connecting: (again) => calls.push(["connecting", again]),
      offline: (seconds) => calls.push(["offline", seconds]),
      tooMany: (seconds) => calls.push(["tooMany", seconds]),
      closed: (code) => calls.push(["closed", code]),
    },
  });
  opened.push(socket);
  return { socket: socket, mirror: mirror, calls: calls };
}

/* The live Showdown page: `state` frames, and the version shown is a plain number. */
function showdownPage() {
  const page = { version: null, shown: [] };
  page.socket = tableSocket.create({
    path: "/ws/showdown/3/",
    versioned: "state",
    shown: () => page.version,
    on: {
      frame(frame) {
        if (frame.type === "snapshot" || frame.type === "state") {
          page.version = frame.version;
          page.shown.push(frame.version);
        }
      },
    },
  });
  opened.push(page.socket);
  return page;
}

function snapshot(version, you = null) {
  return { type: "snapshot", state: tableState(version, you), log: [], chat: [], heartbeat_seconds: 1 };
}

/* A poker page connected and shown `version`. */
function pokerAt(version, you = null) {
  const page = pokerPage();
  page.socket.connect();
  last().accept();
  last().receive(snapshot(version, you));
  return page;
}

const updatesApplied = (page) => page.calls.filter(([type]) => type === "update").map(([, v]) => v);

// ------------------------------------------------------------------ connecting

test("a socket names the owner's process for the front, until a socket fails to open with it", () => {
  const page = pokerPage("asgi-2");
  page.socket.connect();
  assert.equal(last().url, "wss://room.test/ws/tables/7/?node=asgi-2");
  last().accept();
  last().receive(snapshot(10));
  last().drop(1006); // it opened: the process was there, and the hint still holds
  mock.timers.tick(500);
  assert.equal(last().url, "wss://room.test/ws/tables/7/?node=asgi-2&since=10");
  last().drop(1006); // never opened: that process may be gone, so the front chooses
  mock.timers.tick(2000);
  assert.equal(sockets.length, 3);
  assert.equal(last().url, "wss://room.test/ws/tables/7/?since=10");
});

test("the first socket asks for a snapshot, a reconnecting one for the frames since the version shown", () => {
  const page = pokerPage();
  page.socket.connect();
  assert.equal(last().url, "wss://room.test/ws/tables/7/");
  last().accept();
  last().receive(snapshot(10));
  assert.deepEqual(page.calls.slice(0, 3), [["connecting", false], ["snapshot", false], ["hello", "snapshot"]]);
  last().drop(1006);
  mock.timers.tick(500);
  assert.equal(sockets.length, 2);
  assert.equal(last().url, "wss://room.test/ws/tables/7/?since=10");
  assert.deepEqual(page.calls.slice(-2), [["offline", 1], ["connecting", true]]);
  last().accept();
  last().receive({ type: "resync", since: 10, frames: [update(11, 2)], chat: [], heartbeat_seconds: 1 });
  assert.deepEqual(page.calls.slice(-2), [["update", 11], ["hello", "resync"]]);
});

test("a frame that is not JSON, and the frames of a socket given up on, are ignored", () => {
  const page = pokerAt(10);
  const first = last();
  first.receive("{not json");
  first.drop(1006);
  mock.timers.tick(500);
  first.receive(update(11, 2)); // late, from the socket the page no longer uses
  assert.deepEqual(updatesApplied(page), []);
});

test("the socket pings every 25 s once the server answered", () => {
  pokerAt(10);
  mock.timers.tick(25_000);
  assert.equal(last().sentOf("ping").length, 1);
});

// ------------------------------------------------------------------ versions in order

test("an update that comes early is applied only after the one before it, with no resync", () => {
  const page = pokerAt(10);
  last().receive(update(12, 3));
  assert.equal(page.mirror.since, 10);
  assert.equal(page.mirror.composed().hand.turn, 1); // nothing of version 12 shows yet
  assert.equal(page.socket.pending, 1);
  mock.timers.tick(GAP_WAIT_MS - 1);
  last().receive(update(11, 2));
  assert.deepEqual(updatesApplied(page), [11, 12]);
  assert.equal(page.mirror.composed().hand.turn, 3);
  assert.equal(page.socket.pending, 0);
  mock.timers.tick(10 * GAP_WAIT_MS);
  assert.deepEqual(last().sentOf("resync"), []);
});

test("a gap waits GAP_WAIT_MS, then asks once for the frames since the version shown; the answer fills it in order", () => {
  const page = pokerAt(10, 1);
  last().receive(update(13, 4));
  last().receive(update(14, 5));
  mock.timers.tick(GAP_WAIT_MS - 1);
  assert.deepEqual(last().sentOf("resync"), []);
  mock.timers.tick(1);
  assert.deepEqual(last().sentOf("resync"), [{ type: "resync", since: 10 }]);
  mock.timers.tick(10 * GAP_WAIT_MS); // still waiting for the answer: not asked again
  assert.equal(last().sentOf("resync").length, 1);
  // The server's answer: 11 to 13 (13 again: it cannot know which ones came), own part first.
  const own = { id: 7, turn: 3, seat: 1, cards: ["As", "Kd", "Qh", "Jc"], legal_actions: { fold: true } };
  last().receive({ type: "resync", since: 10, frames: [
    update(11, 2),
    { type: "private", version: 12, you: { seat: 1 }, hand: own },
    update(12, 3),
    update(13, 4),
  ] });
  assert.deepEqual(updatesApplied(page), [11, 12, 13, 14]);
  assert.equal(page.socket.pending, 0);
  const state = page.mirror.composed();
  assert.equal(state.hand.turn, 5);
  assert.deepEqual(state.hand.seats[0].cards, ["As", "Kd", "Qh", "Jc"]);
  assert.equal(state.hand.legal_actions, null); // made for turn 3, not 5
});

test("a page has at most one resync in flight: new gaps, a heartbeat ahead, a snapshot wanted and the silence all wait for its answer", () => {
  const page = pokerAt(10); // heartbeat_seconds 1
  last().receive(update(12, 3));
  mock.timers.tick(GAP_WAIT_MS);
  assert.deepEqual(last().sentOf("resync"), [{ type: "resync", since: 10 }]);
  last().receive({ type: "heartbeat", version: 16 }); // ahead of the page
  last().receive(update(14, 5)); // another gap opens
  page.socket.askSnapshot();
  mock.timers.tick(BEHIND_GRACE_MS);
  mock.timers.tick(1000); // the heartbeat's grace and the gap's wait both ran out
  mock.timers.tick(ANSWER_MS - BEHIND_GRACE_MS - GAP_WAIT_MS - 1001); // just short of a drop
  assert.equal(sockets.length, 1);
  assert.deepEqual(last().sentOf("resync"), [{ type: "resync", since: 10 }]);
  assert.deepEqual(last().sentOf("snapshot"), []);
  // The answer fills 11 and 12; 13 is still missing, so the page asks again, once.
  last().receive({ type: "resync", since: 10, frames: [update(11, 2), update(12, 3)] });
  assert.deepEqual(updatesApplied(page), [11, 12]);
  mock.timers.tick(page.socket.gapWaitMs);
  assert.deepEqual(last().sentOf("resync"), [{ type: "resync", since: 10 }, { type: "resync", since: 12 }]);
  mock.timers.tick(BEHIND_GRACE_MS);
  assert.equal(last().sentOf("resync").length, 2);
  last().receive({ type: "resync", since: 12, frames: [update(13, 4), update(14, 5), update(15, 6), update(16, 7)] });
  assert.deepEqual(updatesApplied(page), [11, 12, 13, 14, 15, 16]);
  assert.equal(page.socket.pending, 0);
});

test("an answer that stops short leaves the later updates waiting, and the page asks again", () => {
  const page = pokerAt(10);
  last().receive(update(14, 5));
  mock.timers.tick(GAP_WAIT_MS);
  last().receive({ type: "resync", since: 10, frames: [update(11, 2), update(12, 3)] }); // 13 not kept yet
  assert.equal(page.mirror.since, 12);
  assert.equal(page.socket.pending, 1);
  mock.timers.tick(GAP_WAIT_MS);
  assert.deepEqual(last().sentOf("resync"), [{ type: "resync", since: 10 }, { type: "resync", since: 12 }]);
  last().receive({ type: "resync", since: 12, frames: [update(13, 4)] });
  assert.deepEqual(updatesApplied(page), [11, 12, 13, 14]);
});

test("a missing update that comes after the page asked for it lengthens the next gap's wait, which then fills it without a resync", () => {
  const page = pokerAt(10);
  assert.equal(page.socket.gapWaitMs, GAP_WAIT_MS);
  last().receive(update(12, 3));
  mock.timers.tick(GAP_WAIT_MS);
  assert.deepEqual(last().sentOf("resync"), [{ type: "resync", since: 10 }]);
  last().receive({ type: "resync", since: 10, frames: [update(11, 2), update(12, 3)] });
  mock.timers.tick(150);
  last().receive(update(11, 2)); // crossed for 200 ms in all: stale now, but measured
  assert.equal(page.socket.gapWaitMs, 250);
  last().receive(update(14, 5));
  mock.timers.tick(240);
  last().receive(update(13, 4));
  assert.deepEqual(updatesApplied(page), [11, 12, 13, 14]);
  assert.equal(last().sentOf("resync").length, 1);
});

test("a gap's wait is capped, and shrinks back as later gaps fill quickly", () => {
  const { GAP_WAIT_MAX_MS } = tableSocket;
  const page = pokerAt(10);
  last().receive(update(12, 3));
  mock.timers.tick(GAP_WAIT_MS);
  mock.timers.tick(5000);
  last().receive(update(11, 2)); // before the answer: it fills the gap, 5 s late
  assert.equal(page.socket.gapWaitMs, GAP_WAIT_MAX_MS);
  last().receive({ type: "resync", since: 10, frames: [update(11, 2), update(12, 3)] });
  let version = 12;
  for (let gap = 0; gap < 40; gap += 1) {
    last().receive(update(version + 2, 3));
    mock.timers.tick(5);
    last().receive(update(version + 1, 3));
    version += 2;
  }
  assert.equal(page.socket.gapWaitMs, GAP_WAIT_MS);
  assert.equal(last().sentOf("resync").length, 1);
  assert.equal(page.mirror.since, version);
});

test("a snapshot drops the waiting updates it covers and the next one follows it", () => {
  const page = pokerAt(10);
  last().receive(update(12, 3));
  last().receive(update(14, 5));
  last().receive(snapshot(13));
  assert.deepEqual(updatesApplied(page), [14]);
  assert.equal(page.mirror.since, 14);
  assert.equal(page.socket.pending, 0);
});

test("updates before any snapshot, or not newer than the version shown, are ignored", () => {
  const page = pokerPage();
  page.socket.connect();
  last().accept();
  last().receive(update(3, 1));
  last().receive(snapshot(10));
  last().receive(update(9, 1));
  last().receive(update(10, 1));
  assert.deepEqual(updatesApplied(page), []);
  assert.equal(page.socket.pending, 0);
  mock.timers.tick(10 * GAP_WAIT_MS);
  assert.deepEqual(last().sentOf("resync"), []);
});

test("an update the page cannot apply asks for a snapshot, and the answer says it was asked for", () => {
  const page = pokerAt(10);
  const other = update(11, 2);
  other.hand_changes.id = 8; // a hand the page never saw
  last().receive(other);
  assert.deepEqual(last().sentOf("snapshot"), [{ type: "snapshot" }]);
  last().receive(snapshot(11));
  assert.deepEqual(page.calls.filter(([type]) => type === "snapshot").map(([, asked]) => asked), [false, true]);
});

test("the live Showdown page's `state` frames wait for a gap the same way", () => {
  const page = showdownPage();
  page.socket.connect();
  last().accept();
  last().receive({ type: "snapshot", version: 5, state: {}, heartbeat_seconds: 1 });
  last().receive({ type: "state", version: 7, state: {} });
  last().receive({ type: "state", version: 5, state: {} }); // stale
  mock.timers.tick(GAP_WAIT_MS - 1);
  last().receive({ type: "state", version: 6, state: {} });
  assert.deepEqual(page.shown, [5, 6, 7]);
  // That gap filled itself after 49 ms: the next one waits a quarter longer.
  assert.equal(page.socket.gapWaitMs, Math.ceil(1.25 * (GAP_WAIT_MS - 1)));
  last().receive({ type: "state", version: 9, state: {} });
  mock.timers.tick(page.socket.gapWaitMs);
  assert.deepEqual(last().sentOf("resync"), [{ type: "resync", since: 7 }]);
  last().receive({ type: "resync", since: 7, frames: [{ type: "state", version: 8, state: {} }] });
  assert.deepEqual(page.shown, [5, 6, 7, 8, 9]);
});

// ------------------------------------------------------------------ the watchdog

test("two silent heartbeats ask for a resync; no answer within ANSWER_MS drops the socket and reconnects", () => {
  const page = pokerAt(10); // heartbeat_seconds 1: silence is 2 * 1 s + 2 s
  const first = last();
  mock.timers.tick(4000);
  assert.deepEqual(first.sentOf("resync"), []);
  mock.timers.tick(1000);
  assert.deepEqual(first.sentOf("resync"), [{ type: "resync", since: 10 }]);
  mock.timers.tick(ANSWER_MS);
  assert.equal(sockets.length, 1);
  mock.timers.tick(1000);
  assert.equal(first.readyState, 3, "the silent socket is closed");
  assert.deepEqual(page.calls.slice(-1), [["offline", 1]]);
  mock.timers.tick(500);
  assert.equal(sockets.length, 2);
  assert.equal(last().url, "wss://room.test/ws/tables/7/?since=10");
});

test("a socket that keeps hearing from the table asks nothing", () => {
  pokerAt(10);
  for (let i = 0; i < 10; i++) {
    mock.timers.tick(1000);
    last().receive({ type: "heartbeat", version: 10 });
  }
  assert.deepEqual(last().sent.filter((frame) => frame.type !== "ping"), []);
});

test("a heartbeat of a version not shown asks for a resync after a grace, unless the update comes", () => {
  const page = pokerAt(10);
  last().receive({ type: "heartbeat", version: 11 });
  mock.timers.tick(BEHIND_GRACE_MS - 1);
  last().receive(update(11, 2));
  mock.timers.tick(1);
  assert.deepEqual(last().sentOf("resync"), []);
  last().receive({ type: "heartbeat", version: 12 });
  last().receive({ type: "heartbeat", version: 12 }); // again: still one resync
  mock.timers.tick(BEHIND_GRACE_MS);
  assert.deepEqual(last().sentOf("resync"), [{ type: "resync", since: 11 }]);
  assert.deepEqual(updatesApplied(page), [11]);
});

// ------------------------------------------------------------------ closing and reconnecting

test("4401, 4403, 4404 and 4409 end the page's play: the page is told, nothing reconnects", () => {
  for (const code of [4401, 4403, 4404, 4409]) {
    const page = pokerAt(10);
    const count = sockets.length;
    last().drop(code);
    mock.timers.tick(120_000);
    assert.equal(sockets.length, count, code);
    assert.deepEqual(page.calls.slice(-1), [["closed", code]]);
    assert.equal(page.socket.stopped, true);
    assert.equal(page.socket.send({ type: "ping" }), false);
  }
});

test("a closed Sit & Go's table: `table_closed` stops the socket for good, with no resync as the heartbeats stop", () => {
  const page = pokerAt(10);
  last().receive(update(11, 2)); // the last hand's end, every place
  last().receive({ type: "table_closed", tournament: 12 });
  assert.deepEqual(page.calls.slice(-2), [["update", 11], ["table_closed", false]]);
  assert.equal(page.socket.stopped, true);
  assert.equal(last().readyState, 3, "the page closed it");
  last().drop(4404); // the server's close, after the frame: nothing more to tell
  mock.timers.tick(120_000); // no heartbeat any more
  assert.deepEqual(last().sent.filter((frame) => frame.type !== "ping"), []);
  assert.equal(sockets.length, 1);
  assert.deepEqual(page.calls.slice(-1), [["table_closed", false]], "no offline, closed or reconnect after it");
});

test("4429 waits a minute and a little more before one more try", () => {
  Math.random.mock.mockImplementation(() => 1);
  const page = pokerAt(10);
  last().drop(4429);
  assert.deepEqual(page.calls.slice(-1), [["tooMany", 75]]);
  mock.timers.tick(74_999);
  assert.equal(sockets.length, 1);
  mock.timers.tick(1);
  assert.equal(sockets.length, 2);
});

test("drops reconnect after a backoff that doubles up to 15 s, with jitter, and starts again once connected", () => {
  const page = pokerPage();
  page.socket.connect();
  const waits = [];
  for (let i = 0; i < 7; i++) {
    last().drop(1006);
    const before = sockets.length;
    let waited = 0;
    while (sockets.length === before) {
      mock.timers.tick(100);
      waited += 100;
    }
    waits.push(waited);
  }
  assert.deepEqual(waits, [500, 1000, 2000, 4000, 8000, 15000, 15000]);
  assert.deepEqual(page.calls.filter(([type]) => type === "offline").map(([, s]) => s), [1, 1, 2, 4, 8, 15, 15]);
  last().accept();
  last().receive(snapshot(10));
  Math.random.mock.mockImplementation(() => 0);
  last().drop(1006);
  assert.deepEqual(page.calls.slice(-1), [["offline", 1]]); // 375 ms: a quarter less
  mock.timers.tick(374);
  assert.equal(sockets.length, 8);
  mock.timers.tick(1);
  assert.equal(sockets.length, 9);
});

test("the page's stop closes the socket for good", () => {
  const page = pokerAt(10);
  const count = sockets.length;
  page.socket.stop();
  assert.equal(last().readyState, 3);
  mock.timers.tick(120_000);
  assert.equal(sockets.length, count);
  assert.equal(page.calls.some(([type]) => type === "offline" || type === "closed"), false);
});
