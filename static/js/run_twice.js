/* An all-in runout and a board run twice, as the table page shows them (docs/rules.md "Run it
 * twice", "Showdown on the page"): which streets are turned over, on which board, and who won
 * each run's half of each pot. Only what a frame already says (docs/protocol.md): the streets of
 * the change, and the hand's result once it is over.
 *
 * The table page loads this file before table.js (`window.roomRuns`); tests/js/ runs it under
 * node (`module.exports`).
 */
(function (root) {
  "use strict";

  /* The runout in a change's events: the streets dealt after its last action with a showdown
   * to come, in the order they are turned over, each with its run (2 for the second board, else
   * 1); `shared`, the board before them (the cards both runs share); `first`, the index of the
   * first street's event (the events before it are shown at once). Null when the change deals
   * no street after its last action, or the hand ends without a showdown or is cancelled. */
  function runoutPlan(events, result) {
    let lastAction = -1;
    events.forEach((event, i) => {
      if (event.type === "action") lastAction = i;
    });
    const first = events.findIndex((e, i) => i > lastAction && e.type === "street_dealt");
    if (first < 0 || !result || result.cancelled || !events.some((e) => e.type === "showdown")) {
      return null;
    }
    const steps = events
      .filter((e, i) => i > lastAction && e.type === "street_dealt")
      .map((e) => ({ run: e.run === 2 ? 2 : 1, cards: e.cards }));
    const board = result.board || [];
    const dealtOnFirst = steps.filter((s) => s.run === 1).reduce((n, s) => n + s.cards.length, 0);
    return {
      first: first,
      shared: board.slice(0, Math.max(0, board.length - dealtOnFirst)),
      steps: steps,
      twice: steps.some((s) => s.run === 2),
    };
  }

  /* The two boards as far as `shown` steps of the plan are turned over: the first run on the
   * first row; the second row (null until its first street) starts from the shared cards. */
  function boardsAfter(plan, shown) {
    let first = plan.shared.slice();
    let second = null;
    plan.steps.slice(0, shown).forEach((step) => {
      if (step.run === 2) second = (second || plan.shared.slice()).concat(step.cards);
      else first = first.concat(step.cards);
    });
    return { first: first, second: second };
  }

  /* Is this result's board run twice? */
  function twice(result) {
    return Boolean(result && !result.cancelled && result.boards && result.boards.length === 2);
  }

  /* One run of a board run twice (`run` 0 or 1) as a result of its own: each pot with that
   * run's half and the shares won on it, the showdown's hands as read on that run's board. A
   * pot only one player could win is not run twice: it has no shares here (the whole result
   * says who took it). Null for a board run once. */
  function runResult(result, run) {
    if (!twice(result)) return null;
    const pots = (result.pots || []).map((pot) => {
      const half = pot.runs && pot.runs[run];
      return {
        amount: half ? half.amount : 0,
        eligible: pot.eligible,
        high: half ? half.high || [] : [],
        low: half ? half.low || [] : [],
      };
    });
    const showdown = (result.showdown || []).map((entry) => {
      const read = entry.shown && entry.runs ? entry.runs[run] : null;
      return read ? Object.assign({}, entry, { high: read.high, low: read.low }) : entry;
    });
    return { board: result.boards[run], pots: pots, showdown: showdown };
  }

  /* The seats that won something on each run: [[seats of run 1], [seats of run 2]]; [] for a
   * board run once. */
  function runWinners(result) {
    if (!twice(result)) return [];
    return [0, 1].map((run) => {
      const seats = [];
      runResult(result, run).pots.forEach((pot) => {
        [...pot.high, ...pot.low].forEach((share) => {
          if (share.amount > 0 && !seats.includes(share.seat)) seats.push(share.seat);
        });
      });
      return seats;
    });
  }

  const api = { runoutPlan: runoutPlan, boardsAfter: boardsAfter, twice: twice, runResult: runResult, runWinners: runWinners };
  if (typeof module === "object" && module.exports) {
    module.exports = api;
  } else {
    root.roomRuns = api;
  }
})(typeof window !== "undefined" ? window : globalThis);
