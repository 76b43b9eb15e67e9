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
    for (let held = mirror.nextHeld(); held; held = mirror.nextHeld()) mirror.update(held);
  }
  return kind;
}

test("an update that comes early waits for the one before it", () => {
  const mirror = createMirror();
  mirror.snapshot(snapshot(10));
  assert.equal(receive(mirror, update(12, 3)), "held");
  assert.equal(mirror.publicPart.version, 10);
  assert.equal(mirror.held, 1);
  assert.equal(receive(mirror, update(11, 2)), "next");
  assert.equal(mirror.publicPart.version, 12);
  assert.equal(mirror.composed().hand.turn, 3);
  assert.equal(mirror.held, 0);
});

test("when the missing one never comes the held ones are given up in order", () => {
  const mirror = createMirror();
  mirror.snapshot(snapshot(10));
  receive(mirror, update(13, 4));
  receive(mirror, update(12, 3));
  const frames = mirror.heldGiveUp();
  assert.deepEqual(frames.map((f) => f.version), [12, 13]);
  frames.forEach((f) => mirror.update(f));
  assert.equal(mirror.publicPart.version, 13);
  assert.equal(mirror.composed().hand.turn, 4);
  assert.deepEqual(mirror.heldGiveUp(), []);
});

test("a snapshot drops the held updates it covers and the next one follows it", () => {
  const mirror = createMirror();
  mirror.snapshot(snapshot(10));
  receive(mirror, update(12, 3));
  receive(mirror, update(14, 5));
  mirror.snapshot(snapshot(13));
  const next = mirror.nextHeld();
  assert.equal(next.version, 14);
  mirror.update(next);
  assert.equal(mirror.nextHeld(), null);
  assert.equal(mirror.held, 0);
  assert.equal(mirror.publicPart.version, 14);
  assert.equal(receive(mirror, update(12, 3)), "stale");
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
