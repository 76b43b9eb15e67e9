/* The table's STATE from the socket's frames (docs/protocol.md "Frames"), without the page.
 *
 * The server sends the whole STATE only in a snapshot; after that each change comes as a public
 * `update` (the table's events and changed parts, the same for everyone) and, to the players it
 * concerns, a `private` frame with their own part: `you`, their hole cards, the reading of
 * their hand and their legal actions. A mirror keeps both and lays the own part over the public one (`composed`). Every
 * update is numbered by the table's version; static/js/table_socket.js hands the page update v
 * only after v-1 (docs/protocol.md "Versions and resync"), and `since` is the version it asks
 * for the frames after.
 *
 * The table page loads this file before table.js (`window.tableState`); tests/js/ runs it under
 * node (`module.exports`), so the tests check the page's own code.
 */
(function (root) {
  "use strict";

  /* A snapshot's STATE split like a `private` frame: `you` and the player's own hand part. */
  function ownPartOf(full) {
    const hand = full.hand;
    let mine = null;
    if (hand && hand.you !== null && hand.you !== undefined) {
      const seat = hand.seats.find((s) => s.seat === hand.you);
      mine = {
        id: hand.id, turn: hand.turn, seat: hand.you,
        cards: seat ? seat.cards : null, reading: hand.reading || null,
        legal_actions: hand.legal_actions,
      };
    }
    return { version: full.version, you: full.you, hand: mine };
  }

  function createMirror() {
    let publicPart = null; // version, table, seats, hand (as a spectator sees it), last_result
    let ownPart = null; // version, you, hand: {id, turn, seat, cards, reading, legal_actions} or null

    /* The next update (the one after the version shown) laid over the public part; false when
     * it changes a hand this mirror does not show (the page asks for a snapshot). */
    function update(frame) {
      const next = Object.assign({}, publicPart, { version: frame.version });
      const changes = frame.hand_changes;
      if (changes) {
        const hand = publicPart.hand;
        if (!hand || hand.id !== changes.id) return false;
        const moved = {};
        changes.seats.forEach((s) => (moved[s.seat] = s));
        next.hand = Object.assign({}, hand, changes, {
          seats: hand.seats.map((s) => moved[s.seat] || s),
        });
      } else {
        next.hand = frame.hand;
      }
      if (frame.seats) {
        next.seats = frame.seats;
      } else if (next.hand) {
        // Only the betting moved: the seats' stacks are the hand's.
        const stacks = {};
        next.hand.seats.forEach((s) => (stacks[s.seat] = s.stack));
        next.seats = publicPart.seats.map((s) =>
          s.seat in stacks ? Object.assign({}, s, { stack: stacks[s.seat] }) : s);
      }
      // A Sit & Go's break: the update carries its events, not the table, so the mirror sets
      // `table.break_until` as the next snapshot would show it (docs/protocol.md).
      (frame.events || []).forEach((event) => {
        if (event.type === "break_started" || event.type === "break_ended") {
          const until = event.type === "break_started" ? event.until : null;
          next.table = Object.assign({}, next.table, { break_until: until });
        }
      });
      if ("last_result" in frame) next.last_result = frame.last_result;
      if (frame.waiting) next.waiting = frame.waiting;
      if ("next_server_seed_hash" in frame) next.next_server_seed_hash = frame.next_server_seed_hash;
      // A Sit & Go's clock and places, as STATE's table.tournament (its level, its eliminations).
      if (frame.tournament) next.table = Object.assign({}, next.table, { tournament: frame.tournament });
      publicPart = next;
      return true;
    }

    return {
      /* Null before the first snapshot. */
      get publicPart() { return publicPart; },
      get ownPart() { return ownPart; },
      /* The version shown: what a `resync` asks for the frames after (null before a snapshot). */
      get since() { return publicPart ? publicPart.version : null; },

      snapshot(full) {
        publicPart = Object.assign({}, full);
        if (!ownPart || ownPart.version <= full.version) ownPart = ownPartOf(full);
      },

      /* False for a private frame older than the own part shown. */
      private(frame) {
        if (ownPart && frame.version < ownPart.version) return false;
        ownPart = { version: frame.version, you: frame.you, hand: frame.hand };
        return true;
      },

      update: update,

      /* The STATE as a fresh snapshot would show it: the public part with the player's own
       * part laid over it (their hole cards and the reading of their hand; their legal actions
       * when the hand is at the turn their part was made for). */
      composed() {
        const next = Object.assign({}, publicPart, { you: ownPart ? ownPart.you : publicPart.you });
        const hand = publicPart.hand;
        if (hand) {
          const mine = ownPart && ownPart.hand;
          const h = Object.assign({}, hand, { you: null, legal_actions: null, reading: null });
          if (mine && mine.id === hand.id) {
            h.you = mine.seat;
            h.reading = mine.reading || null;
            h.seats = hand.seats.map((s) =>
              s.seat === mine.seat ? Object.assign({}, s, { cards: mine.cards }) : s);
            if (mine.turn === hand.turn && hand.to_act === mine.seat) {
              h.legal_actions = mine.legal_actions;
            }
          }
          next.hand = h;
        }
        return next;
      },
    };
  }

  /* A Sit & Go player's place by chips among the players still in, from a STATE: the seated
   * players with chips (in a running hand, those behind and those put in it), `{place, of}`,
   * the place shared by equal stacks (everyone is 1st at the start); null for a player not in. */
  function placeByChips(state, playerId) {
    const inHand = {};
    if (state.hand && !state.hand.result) {
      state.hand.seats.forEach((s) => (inHand[s.seat] = (s.committed || 0)));
    }
    const chips = state.seats
      .filter((s) => s.player)
      .map((s) => ({ id: s.player.id, chips: s.stack + (inHand[s.seat] || 0) }))
      .filter((s) => s.chips > 0);
    const mine = chips.find((s) => s.id === playerId);
    if (!mine) return null;
    return { place: 1 + chips.filter((s) => s.chips > mine.chips).length, of: chips.length };
  }

  const api = { createMirror: createMirror, placeByChips: placeByChips };
  if (typeof module === "object" && module.exports) {
    module.exports = api;
  } else {
    root.tableState = api;
  }
})(typeof window !== "undefined" ? window : globalThis);
