/* static/js/sit_and_go.js's liveView, what a running Sit & Go's page shows of its API's answer,
 * run under node: `node --test tests/js/` (make lint). */
"use strict";

const assert = require("node:assert/strict");
const { test } = require("node:test");
const { minutes, roman } = require("../../static/js/money.js");
const { liveView } = require("../../static/js/sit_and_go.js");

const format = {
  roman: roman,
  minutes: minutes,
  chips: (count) => count.toLocaleString("en-US"),
  dollars: (cents) => "$" + (cents / 100).toFixed(2),
  level: (level) => "Level " + level,
  playersLeft: (playing, entrants) => `${playing} of ${entrants} players left.`,
};

/* The API's answer for a running 6-max at level III, two players out. */
function live(overrides = {}) {
  return Object.assign({
    id: 4, status: "running", level: 3, levels: 5, small_blind: 25, big_blind: 50, ante: 5,
    next_level_at: "2026-12-03T14:10:00+00:00", next_small_blind: 50, next_big_blind: 100,
    on_break: false, entrants: 6, players_left: 4, places_paid: 2, pool: 6000,
    players: [
      { id: 7, display_name: "ann", chips: 4200, place: null, prize: 0 },
      { id: 8, display_name: "bob", chips: 900, place: null, prize: 0 },
      { id: 9, display_name: "cyd", chips: 0, place: 5, prize: 0 },
    ],
    prizes: [],
  }, overrides);
}

const NOW = Date.parse("2026-12-03T14:05:55Z");

test("a running Sit & Go's level, blinds, ante and the time to the next level", () => {
  const view = liveView(live(), NOW, format);
  assert.equal(view.over, false);
  assert.equal(view.level, "Level III");
  assert.equal(view.blinds, "25/50");
  assert.equal(view.ante, "5");
  assert.deepEqual(view.next, { time: "4:05", blinds: "50/100" });
  assert.equal(view.playersLeft, "4 of 6 players left.");
  assert.equal(view.onBreak, false);
});

test("its players: chips while in, the place and prize once out", () => {
  const rows = liveView(live(), NOW, format).rows;
  assert.deepEqual(rows[0], { id: 7, name: "ann", place: "–", chips: "4,200", prize: "" });
  assert.deepEqual(rows[2], { id: 9, name: "cyd", place: "5", chips: null, prize: "$0.00" });
});

test("no ante, the last level, a break and a late clock", () => {
  const last = liveView(live({ ante: 0, next_level_at: null, next_small_blind: null,
    next_big_blind: null }), NOW, format);
  assert.equal(last.ante, null);
  assert.equal(last.next, null);
  const pause = liveView(live({ on_break: true }), NOW + 10 * 60 * 1000, format);
  assert.equal(pause.onBreak, true);
  assert.equal(pause.next.time, "0:00"); // the level is due: never a negative time
});

test("once the Sit & Go is over the page is the server's again", () => {
  assert.equal(liveView(live({ status: "finished" }), NOW, format).over, true);
});
