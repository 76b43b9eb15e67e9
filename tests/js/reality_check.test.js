/* static/js/reality_check.js, the reality check of every game page, run under node:
 * `node --test tests/js/` (make lint). Django's catalogue functions are stood in for by
 * English ones, as the page has them from jsi18n/. */
"use strict";

const assert = require("node:assert/strict");
const { test } = require("node:test");

globalThis.ngettext = (one, many, n) => (n === 1 ? one : many);
globalThis.interpolate = (format, values) => format.replace(/%\((\w+)\)s/g, (_, key) => String(values[key]));
const { delayMs, playedLabel } = require("../../static/js/reality_check.js");

test("the next reminder is due at the next whole interval of the session", () => {
  assert.equal(delayMs({ interval_minutes: 10, seconds_played: 1500 }), 5 * 60 * 1000);
  assert.equal(delayMs({ interval_minutes: 10, seconds_played: 0 }), 10 * 60 * 1000);
  // Exactly on a reminder: the next one, a whole interval away (never at once, twice).
  assert.equal(delayMs({ interval_minutes: 15, seconds_played: 1800 }), 15 * 60 * 1000);
  assert.equal(delayMs({ interval_minutes: 60, seconds_played: 3599 }), 1000);
});

test("no reminder is set when the player chose none or the server did not answer", () => {
  assert.equal(delayMs(null), null);
  assert.equal(delayMs({ interval_minutes: null, seconds_played: 1500 }), null);
  assert.equal(delayMs({ interval_minutes: 0, seconds_played: 1500 }), null);
});

test("the time played is written in minutes, then hours and minutes", () => {
  assert.equal(playedLabel(59), "0 minutes");
  assert.equal(playedLabel(60), "1 minute");
  assert.equal(playedLabel(25 * 60 + 59), "25 minutes");
  assert.equal(playedLabel(3600), "1 hour 0 minutes");
  assert.equal(playedLabel(2 * 3600 + 61), "2 hours 1 minute");
});
