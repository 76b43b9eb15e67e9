/* static/js/table_state.js, the page's own reducer of the table socket's frames
 * (docs/protocol.md "Frames"), run under node: `node --test tests/js/` (make lint). */
"use strict";

const assert = require("node:assert/strict");
const { test } = require("node:test");
const { createMirror } = require("../../static/js/table_state.js");

function snapshot(version, you = null) {
  const hand = {
    id: 7, turn: 1, to_act: 1, you: you, legal_actions: you ? { check: true } : null,
    seats: [{ seat: 1, stack: 100, cards: you === 1 ? ["As", "Kd", "Qh", "Jc"] : null }],
    result: null,
  };
  return { version: version, you: you ? { seat: you } : null, hand: hand,
    seats: [{ seat: 1, stack: 100 }], last_result: null };
}

function update(version, turn) {
  const changes = { id: 7, turn: turn, to_act: 1, seats: [{ seat: 1, stack: 100 - turn }] };
  return { type: "update", version: version, events: [], hand_changes: changes };
}

/* What the page does with an update frame (table.js onFrame), without drawing. */
function receive(mirror, frame) {
  const kind = mirror.classify(frame);
  if (kind === "next") {
    mirror.update(frame);
    for (let next = mirror.nextPending(); next; next = mirror.nextPending()) mirror.update(next);
  }
  return kind;
}

/* What the page does with a `resync` answer: each frame in order, then what was pending. */
function resync(mirror, frames) {
  frames.forEach((frame) => (frame.type === "private" ? mirror.private(frame) : receive(mirror, frame)));
  for (let next = mirror.nextPending(); next; next = mirror.nextPending()) mirror.update(next);
}

test("an update that comes early is applied only after the one before it", () => {
  const mirror = createMirror();
  mirror.snapshot(snapshot(10));
  assert.equal(receive(mirror, update(12, 3)), "gap");
  assert.equal(mirror.publicPart.version, 10);
  assert.equal(mirror.composed().hand.turn, 1); // nothing of version 12 shows yet
  assert.equal(mirror.pending, 1);
  assert.equal(receive(mirror, update(11, 2)), "next");
  assert.equal(mirror.publicPart.version, 12);
  assert.equal(mirror.composed().hand.turn, 3);
  assert.equal(mirror.pending, 0);
});

test("a gap asks for the frames since the version shown, and the answer fills it in order", () => {
  const mirror = createMirror();
  mirror.snapshot(snapshot(10, 1));
  receive(mirror, update(13, 4));
  receive(mirror, update(14, 5));
  assert.equal(mirror.since, 10); // the page sends {"type": "resync", "since": 10}
  // The server's answer: 11 to 13 (13 again: it cannot know which ones came), own part first.
  const own = { id: 7, turn: 3, seat: 1, cards: ["As", "Kd", "Qh", "Jc"], legal_actions: { fold: true } };
  resync(mirror, [
    update(11, 2),
    { type: "private", version: 12, you: { seat: 1 }, hand: own },
    update(12, 3),
    update(13, 4),
  ]);
  assert.equal(mirror.publicPart.version, 14);
  assert.equal(mirror.pending, 0);
  assert.equal(mirror.composed().hand.turn, 5);
  assert.deepEqual(mirror.composed().hand.seats[0].cards, ["As", "Kd", "Qh", "Jc"]);
  assert.equal(mirror.composed().hand.legal_actions, null); // made for turn 3, not 5
});

test("an answer that stops short leaves the later updates pending (the page asks again)", () => {
  const mirror = createMirror();
  mirror.snapshot(snapshot(10));
  receive(mirror, update(14, 5));
  resync(mirror, [update(11, 2), update(12, 3)]); // 13 not kept yet on the server
  assert.equal(mirror.publicPart.version, 12);
  assert.equal(mirror.pending, 1);
  assert.equal(mirror.since, 12);
  resync(mirror, [update(13, 4)]);
  assert.equal(mirror.publicPart.version, 14);
  assert.equal(mirror.pending, 0);
});

test("a snapshot drops the pending updates it covers and the next one follows it", () => {
  const mirror = createMirror();
  mirror.snapshot(snapshot(10));
  receive(mirror, update(12, 3));
  receive(mirror, update(14, 5));
  mirror.snapshot(snapshot(13));
  const next = mirror.nextPending();
  assert.equal(next.version, 14);
  mirror.update(next);
  assert.equal(mirror.nextPending(), null);
  assert.equal(mirror.pending, 0);
  assert.equal(mirror.publicPart.version, 14);
  assert.equal(receive(mirror, update(12, 3)), "stale");
});

test("before any snapshot there is nothing to resync from", () => {
  assert.equal(createMirror().since, null);
});

test("updates before any snapshot, or not newer than shown, are ignored", () => {
  const mirror = createMirror();
  assert.equal(mirror.classify(update(3, 1)), "stale");
  mirror.snapshot(snapshot(10));
  assert.equal(mirror.classify(update(10, 1)), "stale");
  assert.equal(mirror.publicPart.version, 10);
});

test("only the betting moved: the seats' stacks follow the hand's", () => {
  const mirror = createMirror();
  mirror.snapshot(snapshot(10));
  receive(mirror, update(11, 2));
  assert.deepEqual(mirror.composed().seats, [{ seat: 1, stack: 98 }]);
});

test("a change to a hand the page never saw is refused (the page asks for a snapshot)", () => {
  const mirror = createMirror();
  mirror.snapshot(snapshot(10));
  const other = update(11, 2);
  other.hand_changes.id = 8;
  assert.equal(mirror.update(other), false);
  assert.equal(mirror.publicPart.version, 10);
});

test("the own part lays the player's cards over the public hand, and the legal actions only at their turn", () => {
  const mirror = createMirror();
  mirror.snapshot(snapshot(10, 1));
  let state = mirror.composed();
  assert.equal(state.hand.you, 1);
  assert.deepEqual(state.hand.seats[0].cards, ["As", "Kd", "Qh", "Jc"]);
  assert.deepEqual(state.hand.legal_actions, { check: true });
  // The public update of the next turn comes: the own part made for turn 1 shows no actions.
  receive(mirror, update(11, 2));
  state = mirror.composed();
  assert.equal(state.hand.legal_actions, null);
  assert.deepEqual(state.hand.seats[0].cards, ["As", "Kd", "Qh", "Jc"]);
  // Its private frame brings them for turn 2; an older private frame changes nothing.
  const own = { id: 7, turn: 2, seat: 1, cards: ["As", "Kd", "Qh", "Jc"], legal_actions: { fold: true } };
  assert.equal(mirror.private({ type: "private", version: 11, you: { seat: 1 }, hand: own }), true);
  assert.deepEqual(mirror.composed().hand.legal_actions, { fold: true });
  assert.equal(mirror.private({ type: "private", version: 10, you: null, hand: null }), false);
  assert.deepEqual(mirror.composed().you, { seat: 1 });
});

test("a spectator's state has no own part", () => {
  const mirror = createMirror();
  mirror.snapshot(snapshot(10));
  const state = mirror.composed();
  assert.equal(state.hand.you, null);
  assert.equal(state.hand.legal_actions, null);
  assert.equal(state.you, null);
});
