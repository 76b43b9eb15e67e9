/* static/js/money.js's number formats (pots, clock, chips, levels, places, countdowns), run under
 * node: `node --test tests/js/` (make lint). */
"use strict";

const assert = require("node:assert/strict");
const { test } = require("node:test");
const { chips, clock, minutes, ordinal, potWinners, roman } = require("../../static/js/money.js");

test("one player who wins both halves of a hi/lo pot scoops it, once, with the whole amount", () => {
  const pot = { pot: 0, amount: 200, high: [{ seat: 4, amount: 100 }], low: [{ seat: 4, amount: 100 }] };
  assert.deepEqual(potWinners(pot), { winners: [{ seat: 4, amount: 200 }], scoop: true });
});

test("a split hi/lo pot names each winner once, their halves added", () => {
  const pot = {
    high: [{ seat: 4, amount: 100 }],
    low: [{ seat: 4, amount: 50 }, { seat: 2, amount: 50 }],
  };
  assert.deepEqual(potWinners(pot), {
    winners: [{ seat: 4, amount: 150 }, { seat: 2, amount: 50 }], scoop: false,
  });
});

test("a high-only pot is won, not scooped, and empty shares are left out", () => {
  assert.deepEqual(potWinners({ high: [{ seat: 1, amount: 300 }], low: [] }),
    { winners: [{ seat: 1, amount: 300 }], scoop: false });
  assert.deepEqual(potWinners({ high: [{ seat: 1, amount: 0 }], low: [] }), { winners: [], scoop: false });
});

test("a time of day is written on the 24-hour clock in UTC, whatever the language", () => {
  for (const language of ["en", "fr", "ja"]) {
    assert.equal(clock("2026-11-26T19:01:00Z", language), "19:01 UTC", language);
  }
  assert.equal(clock(new Date("2026-11-26T00:05:00Z"), "en"), "00:05 UTC");
});

test("a Sit & Go's level is written in Roman numerals, as tournaments/selectors.py's roman()", () => {
  const cases = [[1, "I"], [3, "III"], [4, "IV"], [9, "IX"], [14, "XIV"], [40, "XL"], [49, "XLIX"], [90, "XC"], [100, "C"]];
  for (const [number, numerals] of cases) assert.equal(roman(number), numerals);
});

test("a Sit & Go's chips are grouped as the language groups them, with no currency", () => {
  const formats = { THOUSAND_SEPARATOR: "\u202f", NUMBER_GROUPING: 3 };
  global.get_format = (name) => formats[name];
  try {
    assert.equal(chips(1500), "1\u202f500");
    assert.equal(chips(-300), "-300");
    assert.equal(chips(1234567), "1\u202f234\u202f567");
  } finally {
    delete global.get_format;
  }
});

test("a place is written as each language writes an ordinal", () => {
  const english = [[1, "1st"], [2, "2nd"], [3, "3rd"], [4, "4th"], [11, "11th"], [12, "12th"],
    [13, "13th"], [21, "21st"], [22, "22nd"], [23, "23rd"], [101, "101st"], [111, "111th"]];
  for (const [number, written] of english) assert.equal(ordinal(number, "en"), written);
  assert.equal(ordinal(1, "fr"), "1er");
  assert.equal(ordinal(3, "fr"), "3e");
  assert.equal(ordinal(11, "fr"), "11e");
  assert.equal(ordinal(3, "ja"), "3位");
  assert.equal(ordinal(1, "ja"), "1位");
  assert.equal(ordinal(2, "en-gb"), "2nd");
  assert.equal(ordinal(2, "de"), "2");
});

test("a countdown is minutes and two-digit seconds, never below zero", () => {
  assert.equal(minutes(245), "4:05");
  assert.equal(minutes(60), "1:00");
  assert.equal(minutes(59.2), "1:00");
  assert.equal(minutes(0), "0:00");
  assert.equal(minutes(-3), "0:00");
  assert.equal(minutes(600), "10:00");
});
