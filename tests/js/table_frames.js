/* A poker table's frames as the server sends them (docs/protocol.md "Frames"), shared by the
 * node tests of the page's reducer (table_state.test.js) and of its socket
 * (table_socket.test.js). */
"use strict";

/* The table's state at `version`, as a snapshot carries it; `you` is the viewer's seat. */
function tableState(version, you = null) {
  const hand = {
    id: 7, turn: 1, to_act: 1, you: you, legal_actions: you ? { check: true } : null,
    seats: [{ seat: 1, stack: 100, cards: you === 1 ? ["As", "Kd", "Qh", "Jc"] : null }],
    result: null,
  };
  return { version: version, you: you ? { seat: you } : null, hand: hand,
    seats: [{ seat: 1, stack: 100 }], last_result: null };
}

/* The update that makes `version` out of the one before it, at the hand's turn `turn`. */
function update(version, turn) {
  const changes = { id: 7, turn: turn, to_act: 1, seats: [{ seat: 1, stack: 100 - turn }] };
  return { type: "update", version: version, events: [], hand_changes: changes };
}

module.exports = { tableState, update };
