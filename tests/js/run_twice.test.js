/* static/js/run_twice.js, the all-in runout and a board run twice as the table page shows them,
 * run under node: `node --test tests/js/` (make lint). */
"use strict";

const assert = require("node:assert/strict");
const { test } = require("node:test");
const runs = require("../../static/js/run_twice.js");

const street = (name, cards, run) => Object.assign({ type: "street_dealt", street: name, cards: cards }, run ? { run: run } : {});
const FIRST = ["Ah", "Kd", "7c", "2s", "9h"];
const SECOND = ["Ah", "Kd", "7c", "Qs", "3d"];

/* A heads-up hand all in on the flop and run twice: the frame that deals both runs. */
function runTwiceOnTheFlop() {
  const events = [
    { type: "runs_answered", seat: 2 },
    { type: "runs_chosen", runs: 2 },
    street("turn", ["2s"], 1),
    street("river", ["9h"], 1),
    street("turn", ["Qs"], 2),
    street("river", ["3d"], 2),
    { type: "showdown", order: [1, 2] },
    { type: "hand_ended", rake: 0, stacks: [] },
  ];
  const result = {
    board: FIRST,
    boards: [FIRST, SECOND],
    pots: [
      {
        amount: 601, eligible: [1, 2], rake: 0,
        high: [{ seat: 1, amount: 301 }, { seat: 2, amount: 300 }], low: [],
        runs: [
          { amount: 301, high: [{ seat: 1, amount: 301 }], low: [] },
          { amount: 300, high: [{ seat: 2, amount: 300 }], low: [] },
        ],
      },
    ],
    showdown: [
      { seat: 1, shown: true, cards: ["As", "Ac", "5d", "6d"], high: { name: "trips A" }, low: null,
        runs: [{ high: { name: "trips A" }, low: null }, { high: { name: "pair A" }, low: null }] },
      { seat: 2, shown: true, cards: ["Qh", "Qc", "4h", "8s"], high: { name: "pair Q" }, low: null,
        runs: [{ high: { name: "pair Q" }, low: null }, { high: { name: "trips Q" }, low: null }] },
    ],
  };
  return { events: events, result: result };
}

test("a board run twice is turned over run by run, the second row from the shared flop", () => {
  const { events, result } = runTwiceOnTheFlop();
  const plan = runs.runoutPlan(events, result);
  assert.equal(plan.first, 2); // the answer and the choice are shown at once
  assert.equal(plan.twice, true);
  assert.deepEqual(plan.shared, ["Ah", "Kd", "7c"]);
  assert.deepEqual(plan.steps.map((s) => s.run), [1, 1, 2, 2]);
  const rows = [0, 1, 2, 3, 4].map((shown) => runs.boardsAfter(plan, shown));
  assert.deepEqual(rows.map((r) => r.first.length), [3, 4, 5, 5, 5]);
  assert.deepEqual(rows.map((r) => r.second && r.second.length), [null, null, null, 4, 5]);
  assert.deepEqual(rows[4], { first: FIRST, second: SECOND });
});

test("all in preflop and run twice: both rows start empty, six streets in all", () => {
  const events = [
    { type: "action", seat: 2, action: "call", to: 300, added: 200, all_in: true },
    { type: "runs_chosen", runs: 2 },
    street("flop", FIRST.slice(0, 3), 1), street("turn", ["2s"], 1), street("river", ["9h"], 1),
    street("flop", ["Jc", "Jd", "4c"], 2), street("turn", ["Qs"], 2), street("river", ["3d"], 2),
    { type: "showdown", order: [1, 2] },
  ];
  const second = ["Jc", "Jd", "4c", "Qs", "3d"];
  const plan = runs.runoutPlan(events, { board: FIRST, boards: [FIRST, second], pots: [] });
  assert.deepEqual(plan.shared, []);
  assert.equal(plan.steps.length, 6);
  assert.equal(runs.boardsAfter(plan, 3).second, null);
  assert.deepEqual(runs.boardsAfter(plan, 4), { first: FIRST, second: ["Jc", "Jd", "4c"] });
  assert.deepEqual(runs.boardsAfter(plan, 6).second, second);
});

test("a board run once is one row, as before; no runout without a showdown or after the last action", () => {
  const events = [
    { type: "action", seat: 2, action: "call", all_in: true },
    street("turn", ["2s"]), street("river", ["9h"]),
    { type: "showdown", order: [1, 2] },
  ];
  const plan = runs.runoutPlan(events, { board: FIRST, pots: [] });
  assert.equal(plan.twice, false);
  assert.deepEqual(plan.shared, ["Ah", "Kd", "7c"]);
  assert.deepEqual(runs.boardsAfter(plan, 2), { first: FIRST, second: null });
  // Dealt and then bet on: nothing to turn over; everyone folded: no showdown.
  assert.equal(runs.runoutPlan([street("turn", ["2s"]), { type: "action", seat: 1, action: "check" }], { board: FIRST }), null);
  assert.equal(runs.runoutPlan([street("river", ["9h"])], { board: FIRST }), null);
  assert.equal(runs.runoutPlan(events, { cancelled: true }), null);
  assert.equal(runs.runoutPlan(events, null), null);
});

test("each run's result: that run's half of each pot and the hands read on its board", () => {
  const { result } = runTwiceOnTheFlop();
  const one = runs.runResult(result, 0);
  const two = runs.runResult(result, 1);
  assert.deepEqual(one.board, FIRST);
  assert.deepEqual(two.board, SECOND);
  assert.deepEqual(one.pots[0].high, [{ seat: 1, amount: 301 }]);
  assert.deepEqual(two.pots[0].high, [{ seat: 2, amount: 300 }]);
  assert.equal(one.pots[0].amount + two.pots[0].amount, 601);
  assert.equal(two.showdown[1].high.name, "trips Q");
  assert.equal(two.showdown[0].high.name, "pair A");
  assert.deepEqual(two.showdown[0].cards, result.showdown[0].cards);
  assert.equal("rake" in one, false); // the rake is the whole hand's, not a run's
  assert.deepEqual(runs.runWinners(result), [[1], [2]]);
});

test("a pot only one player could win is in neither run; a mucked hand stays mucked", () => {
  const { result } = runTwiceOnTheFlop();
  result.pots.push({ amount: 200, eligible: [2], rake: 0, high: [{ seat: 2, amount: 200 }], low: [] });
  result.showdown.push({ seat: 3, shown: false });
  const two = runs.runResult(result, 1);
  assert.deepEqual(two.pots[1], { amount: 0, eligible: [2], high: [], low: [] });
  assert.deepEqual(two.showdown[2], { seat: 3, shown: false });
  assert.deepEqual(runs.runWinners(result), [[1], [2]]);
});

test("hi/lo: a run's winners are each side's, once each, shares of nothing left out", () => {
  const { result } = runTwiceOnTheFlop();
  result.pots[0].runs = [
    { amount: 301, high: [{ seat: 1, amount: 151 }], low: [{ seat: 2, amount: 150 }] },
    { amount: 300, high: [{ seat: 1, amount: 150 }], low: [{ seat: 1, amount: 150 }, { seat: 2, amount: 0 }] },
  ];
  assert.deepEqual(runs.runWinners(result), [[1, 2], [1]]);
});

test("a board run once, or a cancelled hand, has no runs", () => {
  assert.equal(runs.twice({ board: FIRST }), false);
  assert.equal(runs.twice({ cancelled: true, boards: [FIRST, SECOND] }), false);
  assert.equal(runs.twice(null), false);
  assert.equal(runs.runResult({ board: FIRST, pots: [] }, 0), null);
  assert.deepEqual(runs.runWinners({ board: FIRST, pots: [] }), []);
});
