/* The table's STATE from the socket's frames (docs/protocol.md "Frames"), without the page.
 *
 * The server sends the whole STATE only in a snapshot; after that each change comes as a public
 * `update` (the table's events and changed parts, the same for everyone) and, to the players it
 * concerns, a `private` frame with their own part: `you`, their hole cards and their legal
 * actions. A mirror keeps both and lays the own part over the public one (`composed`). Every
 * update is numbered by the table's version, and update v is applied only after v-1: one that
 * skips a version waits (`pending`) for the missing one; when that has not come within
 * GAP_WAIT_MS the page sends `{"type": "resync", "since": mirror.since}` and the server answers
 * with exactly the frames it missed, in order (docs/protocol.md "Versions and resync").
 *
 * The table page loads this file before table.js (`window.tableState`); tests/js/ runs it under
 * node (`module.exports`), so the tests check the page's own code.
 */
(function (root) {
  "use strict";

  const GAP_WAIT_MS = 50;

  /* A snapshot's STATE split like a `private` frame: `you` and the player's own hand part. */
  function ownPartOf(full) {
    const hand = full.hand;
    let mine = null;
    if (hand && hand.you !== null && hand.you !== undefined) {
      const seat = hand.seats.find((s) => s.seat === hand.you);
      mine = {
        id: hand.id, turn: hand.turn, seat: hand.you,
        cards: seat ? seat.cards : null, legal_actions: hand.legal_actions,
      };
    }
    return { version: full.version, you: full.you, hand: mine };
  }

  function createMirror() {
    let publicPart = null; // version, table, seats, hand (as a spectator sees it), last_result
    let ownPart = null; // version, you, hand: {id, turn, seat, cards, legal_actions} or null
    const pending = new Map(); // version -> an update that came before the one it follows

    /* The next update laid over the public part; false when it changes a hand this mirror
     * does not show (the page asks for a snapshot). */
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
      if ("last_result" in frame) next.last_result = frame.last_result;
      if (frame.waiting) next.waiting = frame.waiting;
      if ("next_server_seed_hash" in frame) next.next_server_seed_hash = frame.next_server_seed_hash;
      publicPart = next;
      return true;
    }

    return {
      /* Null before the first snapshot. */
      get publicPart() { return publicPart; },
      get ownPart() { return ownPart; },
      get pending() { return pending.size; },
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

      /* What to do with an update: "stale" (not newer than shown, or before any snapshot:
       * ignored), "gap" (it skips a version: kept until `nextPending` returns it; ask for the
       * missing ones with `resync` if they do not come within GAP_WAIT_MS) or "next" (apply it
       * now with `update`). */
      classify(frame) {
        if (!publicPart || frame.version <= publicPart.version) return "stale";
        if (frame.version > publicPart.version + 1) {
          pending.set(frame.version, frame);
          return "gap";
        }
        return "next";
      },

      update: update,

      /* The pending update that follows what is shown now, or null (the older ones are
       * dropped). */
      nextPending() {
        pending.forEach((_, version) => {
          if (publicPart && version <= publicPart.version) pending.delete(version);
        });
        if (!publicPart || !pending.has(publicPart.version + 1)) return null;
        const frame = pending.get(publicPart.version + 1);
        pending.delete(frame.version);
        return frame;
      },

      /* The STATE as a fresh snapshot would show it: the public part with the player's own
       * part laid over it (their hole cards; their legal actions when the hand is at the turn
       * their part was made for). */
      composed() {
        const next = Object.assign({}, publicPart, { you: ownPart ? ownPart.you : publicPart.you });
        const hand = publicPart.hand;
        if (hand) {
          const mine = ownPart && ownPart.hand;
          const h = Object.assign({}, hand, { you: null, legal_actions: null });
          if (mine && mine.id === hand.id) {
            h.you = mine.seat;
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

  const api = { GAP_WAIT_MS: GAP_WAIT_MS, createMirror: createMirror };
  if (typeof module === "object" && module.exports) {
    module.exports = api;
  } else {
    root.tableState = api;
  }
})(typeof window !== "undefined" ? window : globalThis);
