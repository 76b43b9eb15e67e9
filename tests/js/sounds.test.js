/* static/js/sounds.js, which sound a table's frame makes and the player that plays it only
 * after the player's first gesture, run under node: `node --test tests/js/` (make lint). */
"use strict";

const assert = require("node:assert/strict");
const { test } = require("node:test");
const sounds = require("../../static/js/sounds.js");
const { tableState } = require("./table_frames.js");

const action = (seat, kind) => ({ type: "action", seat: seat, action: kind });
const pot = (high, low) => ({ type: "pot_awarded", pot: 0, high: high, low: low || [] });

/* The viewer at seat 1, to act at `turn` (their frame carries the legal actions). */
function myTurnAt(turn) {
  const state = tableState(10, 1);
  state.hand.turn = turn;
  state.hand.legal_actions = { seat: 1, check: true };
  return state;
}

test("a check knocks, chips go in for calls, bets and raises, a fold is silent", () => {
  assert.deepEqual(sounds.eventSounds([action(2, "check")], 1), ["check"]);
  for (const kind of ["call", "bet", "raise", "all_in"]) {
    assert.deepEqual(sounds.eventSounds([action(2, kind)], 1), ["chips"], kind);
  }
  assert.deepEqual(sounds.eventSounds([action(2, "fold")], 1), []);
  assert.deepEqual(sounds.eventSounds([{ type: "street_dealt", cards: ["2c"] }], 1), []);
  // A frame with several actions plays each sound once.
  assert.deepEqual(sounds.eventSounds([action(2, "bet"), action(3, "call"), action(4, "check")], 1), ["chips", "check"]);
});

test("a pot the viewer takes plays the win, a half of a hi/lo pot too; others' pots and a spectator's do not", () => {
  assert.deepEqual(sounds.eventSounds([action(2, "call"), pot([{ seat: 1, amount: 300 }])], 1), ["chips", "win"]);
  assert.deepEqual(sounds.eventSounds([pot([{ seat: 2, amount: 300 }], [{ seat: 1, amount: 150 }])], 1), ["win"]);
  assert.deepEqual(sounds.eventSounds([pot([{ seat: 2, amount: 300 }])], 1), []);
  assert.deepEqual(sounds.eventSounds([pot([{ seat: 1, amount: 0 }])], 1), []); // nothing won
  assert.deepEqual(sounds.eventSounds([pot([{ seat: 1, amount: 300 }])], null), []);
});

test("the turn chimes once when it becomes the viewer's, after the chips that made it so", () => {
  const cues = sounds.tableCues();
  const watching = tableState(10, 1);
  watching.hand.to_act = 2;
  assert.deepEqual(cues.update(watching, [], false), []);
  assert.deepEqual(cues.update(myTurnAt(2), [action(2, "raise")], false), ["chips", "turn"]);
  // The same turn drawn again (a private frame, a resync): no second chime.
  assert.deepEqual(cues.update(myTurnAt(2), [], false), []);
  assert.deepEqual(cues.update(myTurnAt(4), [action(2, "call")], false), ["chips", "turn"]);
  // A pre-action answered the turn as it came: nobody to call.
  assert.deepEqual(cues.update(myTurnAt(6), [action(2, "bet")], true), ["chips"]);
  // A spectator is never called.
  assert.deepEqual(sounds.tableCues().update(tableState(10), [], false), []);
});

test("the viewer's clock warns once when it runs low, and once more on the time bank", () => {
  const cues = sounds.tableCues();
  const mine = myTurnAt(2);
  assert.deepEqual(cues.tick(mine, 12, false), []);
  assert.deepEqual(cues.tick(mine, 4.8, false), ["time"]);
  assert.deepEqual(cues.tick(mine, 3.1, false), []);
  assert.deepEqual(cues.tick(mine, 4.9, true), ["time"]);
  assert.deepEqual(cues.tick(mine, 0.5, true), []);
  assert.deepEqual(cues.tick(myTurnAt(4), 0, false), []); // past the deadline: too late to warn
  assert.deepEqual(cues.tick(myTurnAt(4), 2, false), ["time"]); // the next turn's own warning
  const other = tableState(10, 1);
  other.hand.to_act = 2;
  assert.deepEqual(cues.tick(other, 2, false), []); // another player's clock
});

test("a chat line sounds unless the viewer wrote it or muted its writer", () => {
  const line = { id: 1, player: { id: 7, display_name: "Ann" }, text: "gl" };
  assert.equal(sounds.chatSound(line, 8, false), "chat");
  assert.equal(sounds.chatSound(line, 7, false), null);
  assert.equal(sounds.chatSound(line, 8, true), null);
});

/* A live Showdown view (docs/protocol.md "Live Omaha Showdown") with the viewer at seat 1. */
function round(id, phase, seats) {
  return { round: { id: id, phase: phase, seats: seats } };
}

test("live Showdown: wagers and decisions make their sounds, the viewer's decision chimes, a settled gain wins", () => {
  const cues = sounds.showdownCues();
  const me = (extra) => Object.assign({ seat: 1, you: true }, extra);
  // The first frame shows what had happened: no sound.
  assert.deepEqual(cues.update(round(5, "betting", [{ seat: 2 }])), []);
  assert.deepEqual(cues.update(round(5, "betting", [{ seat: 2 }, me()])), ["chips"]);
  assert.deepEqual(cues.update(round(5, "deciding", [{ seat: 2 }, me()])), ["turn"]);
  assert.deepEqual(cues.update(round(5, "deciding", [{ seat: 2, decided: true }, me()])), ["check"]);
  assert.deepEqual(cues.update(round(5, "deciding", [{ seat: 2, decided: true }, me({ decision: "raise" })])), ["chips"]);
  assert.deepEqual(cues.update(round(5, "settled", [{ seat: 2, net: -10 }, me({ decision: "raise", net: 30 })])), ["win"]);
  // A new round: its first wager; a fold of the viewer's is silent, a loss plays nothing.
  assert.deepEqual(cues.update(round(6, "betting", [me()])), ["chips"]);
  assert.deepEqual(cues.update(round(6, "deciding", [me()])), ["turn"]);
  assert.deepEqual(cues.update(round(6, "deciding", [me({ decision: "fold" })])), []);
  assert.deepEqual(cues.update(round(6, "settled", [me({ decision: "fold", net: -5 })])), []);
});

test("live Showdown: the decision's clock warns once, only while the viewer has not decided", () => {
  const cues = sounds.showdownCues();
  const deciding = round(5, "deciding", [{ seat: 1, you: true }]);
  assert.deepEqual(cues.tick(deciding, 9), []);
  assert.deepEqual(cues.tick(deciding, 4), ["time"]);
  assert.deepEqual(cues.tick(deciding, 2), []);
  assert.deepEqual(cues.tick(round(6, "deciding", [{ seat: 1, you: true, decision: "call" }]), 2), []);
  assert.deepEqual(cues.tick(round(6, "betting", [{ seat: 1, you: true }]), 2), []);
  assert.deepEqual(cues.tick({ round: null }, 2), []);
});

/* A stand-in for the browser's AudioContext: records the oscillators started. */
function fakeAudio() {
  const made = [];
  class Context {
    constructor() {
      this.state = "running";
      this.currentTime = 0;
      this.destination = {};
      this.resumed = 0;
      made.push(this);
      this.started = [];
    }
    resume() { this.resumed += 1; this.state = "running"; return Promise.resolve(); }
    createOscillator() {
      const context = this;
      const param = () => ({ setValueAtTime() {}, exponentialRampToValueAtTime() {}, linearRampToValueAtTime() {} });
      return { frequency: param(), connect() {}, start(at) { context.started.push(at); }, stop() {} };
    }
    createGain() {
      return { gain: { setValueAtTime() {}, linearRampToValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect() {} };
    }
  }
  return { Context: Context, made: made };
}

test("nothing plays, and no AudioContext is made, before the player's first gesture", () => {
  const audio = fakeAudio();
  const player = sounds.createPlayer({ AudioContext: audio.Context, muted: false });
  assert.equal(player.play(["turn"]), 0);
  assert.equal(audio.made.length, 0);
  player.gesture();
  assert.equal(audio.made.length, 1);
  assert.equal(player.play(["turn", "chips"]), 2);
  assert.equal(audio.made[0].started.length, sounds.SOUNDS.turn.length + sounds.SOUNDS.chips.length);
  // The second sound starts after the first has ended.
  assert.ok(audio.made[0].started.at(-1) > 0.3);
  player.gesture();
  assert.equal(audio.made.length, 1, "one context for the page");
});

test("a context the browser suspended is resumed at the next gesture", () => {
  const audio = fakeAudio();
  const player = sounds.createPlayer({ AudioContext: audio.Context });
  player.gesture();
  audio.made[0].state = "suspended";
  player.gesture();
  assert.equal(audio.made[0].resumed, 1);
});

test("muted, nothing plays; unmuting (a click) plays again; a device without audio stays silent", () => {
  const audio = fakeAudio();
  const player = sounds.createPlayer({ AudioContext: audio.Context, muted: true });
  player.gesture();
  assert.equal(player.play(["win"]), 0);
  assert.equal(audio.made.length, 0, "a muted page makes no context");
  player.setMuted(false);
  assert.equal(player.play(["win", "win", "unknown", null]), 1);
  player.setMuted(true);
  assert.equal(player.play(["chat"]), 0);
  assert.deepEqual(player.played, ["win"]);
  const silent = sounds.createPlayer({ AudioContext: null });
  silent.gesture();
  assert.equal(silent.play(["turn"]), 0);
  class Broken { constructor() { throw new Error("no audio device"); } }
  const broken = sounds.createPlayer({ AudioContext: Broken });
  broken.gesture();
  assert.equal(broken.play(["turn"]), 0);
});

test("every sound is short and quiet enough not to drown the table", () => {
  for (const [name, tones] of Object.entries(sounds.SOUNDS)) {
    const end = Math.max(...tones.map((t) => t.at + t.dur));
    assert.ok(end <= 0.8, name);
    assert.ok(tones.every((t) => t.gain > 0 && t.gain <= 1 && t.freq > 50 && t.freq < 5000), name);
  }
});
