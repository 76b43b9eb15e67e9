/* CPU per `update` frame of the poker page's own handling, without drawing: JSON.parse, the
 * version order of static/js/table_socket.js and the mirror's update and composed
 * (static/js/table_state.js), over 200,000 updates with every tenth pair crossed; the median of
 * five runs. `--before OLD_TABLE_STATE_JS`: also the page before table_socket.js, whose mirror
 * kept the order itself (`classify`, `nextPending`), e.g. `git show 220bb72:static/js/table_state.js`.
 *
 *   node bench/page_socket.js [--before /tmp/old_table_state.js]   (docs/benchmarks.md)
 */
"use strict";

const path = require("node:path");
const { createMirror } = require("../static/js/table_state.js");
const tableSocket = require("../static/js/table_socket.js");

const N = 200000;

function snapshotState(version) {
  const seats = [{ seat: 1, stack: 100, cards: null }, { seat: 2, stack: 100, cards: null }];
  return {
    version: version, you: null, last_result: null,
    seats: [{ seat: 1, stack: 100 }, { seat: 2, stack: 100 }],
    hand: { id: 7, turn: 1, to_act: 1, you: null, legal_actions: null, seats: seats, result: null },
  };
}

function frames() {
  const texts = [];
  for (let v = 11; v < 11 + N; v++) {
    const changes = { id: 7, turn: v, to_act: 1, seats: [{ seat: 1, stack: 100 }] };
    texts.push(JSON.stringify({ type: "update", version: v, events: [], hand_changes: changes }));
  }
  for (let i = 0; i + 1 < texts.length; i += 10) [texts[i], texts[i + 1]] = [texts[i + 1], texts[i]];
  return texts;
}

function cpuPerFrame(run) {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / N;
}

const texts = frames();

function before(oldState) {
  const mirror = oldState.createMirror();
  mirror.snapshot(snapshotState(10));
  for (const text of texts) {
    const frame = JSON.parse(text);
    if (mirror.classify(frame) === "next") {
      mirror.update(frame);
      for (let next = mirror.nextPending(); next; next = mirror.nextPending()) mirror.update(next);
    }
    mirror.composed();
  }
  if (mirror.since !== 10 + N) throw new Error("before: " + mirror.since);
}

let listeners = {};
globalThis.location = { protocol: "http:", host: "bench" };
globalThis.WebSocket = class {
  constructor() { this.readyState = 1; listeners = {}; }
  addEventListener(type, listener) { listeners[type] = listener; }
  send() {}
  close() {}
};

function after() {
  const mirror = createMirror();
  const socket = tableSocket.create({
    path: "/ws/tables/7/", versioned: "update", shown: () => mirror.since,
    on: { frame(frame) {
      if (frame.type === "snapshot") mirror.snapshot(frame.state);
      else mirror.update(frame);
      mirror.composed();
    } },
  });
  socket.connect();
  listeners.message({ data: JSON.stringify({ type: "snapshot", state: snapshotState(10), heartbeat_seconds: 5 }) });
  for (const text of texts) listeners.message({ data: text });
  socket.stop();
  if (mirror.since !== 10 + N) throw new Error("after: " + mirror.since);
}

const at = process.argv.indexOf("--before");
const oldState = at > 0 ? require(path.resolve(process.argv[at + 1])) : null;
const runs = { before: [], after: [] };
for (let i = 0; i < 5; i++) {
  if (oldState) runs.before.push(cpuPerFrame(() => before(oldState)));
  runs.after.push(cpuPerFrame(after));
}
const median = (list) => list.slice().sort((a, b) => a - b)[2];
if (oldState) console.log("before: " + median(runs.before).toFixed(2) + " us CPU per update frame");
console.log("after:  " + median(runs.after).toFixed(2) + " us CPU per update frame");
