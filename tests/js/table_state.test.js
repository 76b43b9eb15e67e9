/* static/js/table_state.js, the page's own reducer of the table socket's frames
 * (docs/protocol.md "Frames"), run under node: `node --test tests/js/` (make lint). The order
 * the updates come in is static/js/table_socket.js's (table_socket.test.js). */
"use strict";

const assert = require("node:assert/strict");
const { test } = require("node:test");
const { createMirror, placeByChips } = require("../../static/js/table_state.js");
const { tableState: snapshot, update } = require("./table_frames.js");

test("before any snapshot there is nothing to resync from", () => {
  assert.equal(createMirror().since, null);
});

test("a snapshot shows its version, and the next update follows it", () => {
  const mirror = createMirror();
  mirror.snapshot(snapshot(10));
  assert.equal(mirror.since, 10);
  assert.equal(mirror.update(update(11, 2)), true);
  assert.equal(mirror.since, 11);
  assert.equal(mirror.composed().hand.turn, 2);
  mirror.snapshot(snapshot(13));
  assert.equal(mirror.since, 13);
  assert.equal(mirror.composed().hand.turn, 1);
});

test("only the betting moved: the seats' stacks follow the hand's", () => {
  const mirror = createMirror();
  mirror.snapshot(snapshot(10));
  mirror.update(update(11, 2));
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
  mirror.update(update(11, 2));
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

test("the reading of the player's hand is their own part's, kept over public updates, and nobody else's", () => {
  const reading = {
    high: { name: "one pair, aces", category: "one pair", cards: ["As", "Ah", "Kd", "7c", "2d"] },
    low: null,
  };
  const mirror = createMirror();
  const full = snapshot(10, 1);
  full.hand.reading = reading;
  mirror.snapshot(full);
  assert.deepEqual(mirror.composed().hand.reading, reading);
  // A public update carries no reading (null in a whole public hand): the own part's stays.
  const next = update(11, 2);
  next.hand_changes.reading = null;
  mirror.update(next);
  assert.deepEqual(mirror.composed().hand.reading, reading);
  // A private frame for another hand (the next one dealt): no reading shows on this one.
  const other = { id: 8, turn: 1, seat: 1, cards: ["2c", "3c", "4c", "5c"], reading: reading, legal_actions: null };
  mirror.private({ type: "private", version: 12, you: { seat: 1 }, hand: other });
  assert.equal(mirror.composed().hand.reading, null);
  // A spectator sees none, even with one in the public hand by mistake of a server.
  const watching = createMirror();
  const seen = snapshot(10);
  seen.hand.reading = reading;
  watching.snapshot(seen);
  assert.equal(watching.composed().hand.reading, null);
});

test("a Sit & Go's clock and places come with an update, the rest of the table kept", () => {
  const mirror = createMirror();
  const state = snapshot(10);
  const clock = { id: 3, level: 1, players_left: 2, places: [] };
  state.table = { id: 4, name: "Sit & Go #3", tournament: clock };
  mirror.snapshot(state);
  // Betting carries no clock: the snapshot's stays.
  mirror.update(update(11, 2));
  assert.deepEqual(mirror.composed().table.tournament, clock);
  // The hand's end: the places, everyone's once it is over.
  const over = { id: 3, level: 1, players_left: 0, places: [{ player: { id: 1 }, place: 1, prize: 2000 }] };
  const end = { type: "update", version: 12, events: [], hand: null, seats: [], last_result: null, tournament: over };
  assert.equal(mirror.update(end), true);
  assert.deepEqual(mirror.composed().table, { id: 4, name: "Sit & Go #3", tournament: over });
  assert.deepEqual(state.table.tournament, clock); // the snapshot itself untouched
});

test("a Sit & Go's break starts and ends with its events, as a snapshot would show it", () => {
  const mirror = createMirror();
  const state = snapshot(10);
  state.table = { id: 3, tournament: { level: 1 }, break_until: null };
  mirror.snapshot(state);
  const until = "2026-12-03T14:05:00+00:00";
  mirror.update({ type: "update", version: 11, hand: null,
    events: [{ type: "break_started", until: until, level: 2 }] });
  assert.equal(mirror.composed().table.break_until, until);
  assert.equal(mirror.composed().table.tournament.level, 1);
  mirror.update({ type: "update", version: 12, hand: null, events: [{ type: "break_ended" }] });
  assert.equal(mirror.composed().table.break_until, null);
  assert.equal(state.table.break_until, null); // the snapshot given is not changed
});

/* Seats as a Sit & Go's STATE shows them: player id and stack behind. */
function sitAndGo(stacks, hand = null) {
  return { seats: stacks.map(([id, stack], k) => ({ seat: k + 1, player: id ? { id: id } : null, stack: stack })),
    hand: hand };
}

test("a player's place is by chips among the players still in, equal stacks sharing it", () => {
  const state = sitAndGo([[1, 1500], [2, 3000], [null, 0], [3, 1500], [4, 0], [5, 900]]);
  assert.deepEqual(placeByChips(state, 2), { place: 1, of: 4 });
  assert.deepEqual(placeByChips(state, 1), { place: 2, of: 4 });
  assert.deepEqual(placeByChips(state, 3), { place: 2, of: 4 });
  assert.deepEqual(placeByChips(state, 5), { place: 4, of: 4 });
  assert.equal(placeByChips(state, 4), null); // out of chips
  assert.equal(placeByChips(state, 9), null); // not at the table
});

test("in a running hand a player's chips are those behind and those put in it", () => {
  const hand = { result: null, seats: [{ seat: 1, committed: 1500 }, { seat: 2, committed: 100 }] };
  const state = sitAndGo([[1, 0], [2, 1300]], hand);
  assert.deepEqual(placeByChips(state, 1), { place: 1, of: 2 }); // all in, still in
  assert.deepEqual(placeByChips(state, 2), { place: 2, of: 2 });
  // Once the hand has its result the stacks are the hand's end.
  const over = sitAndGo([[1, 0], [2, 3000]], Object.assign({}, hand, { result: {} }));
  assert.deepEqual(placeByChips(over, 2), { place: 1, of: 1 });
});
