// The live Omaha Showdown table (docs/protocol.md "Live Omaha Showdown"): one socket, and the
// page drawn again from each `state` frame (the public view) with the player's own part (the
// `private` frame of the same version) laid over it. The socket's life (versions in order,
// resync, the heartbeat, reconnecting, the reconnect limit and a second tab) is
// static/js/table_socket.js's, as at poker tables. Plain JS, no build step.
(function () {
  "use strict";
  const root = document.getElementById("sdl");
  if (!root) return;
  const tableId = root.dataset.table;
  const $ = (id) => document.getElementById(id);
  const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };
  const WAGERS = {
    ante: pgettext("wager", "Ante"),
    bet: pgettext("wager", "Bet"),
    hole_card_bonus: pgettext("wager", "Hole Card Bonus"),
    final_hand_bonus: pgettext("wager", "Final Hand Bonus"),
  };
  // The side bets as the seats write them, explained under the table (#sdl-legend).
  const SHORT = { hole_card_bonus: gettext("HCB"), final_hand_bonus: gettext("FHB") };
  const DECISIONS = { fold: gettext("Fold"), call: gettext("Call"), raise: gettext("Raise") };
  const fill = (format, values) => interpolate(format, values, true);
  let state = null; // what the page shows: the public view with the player's own part
  let own = null; // the player's own part: {you, hand}
  let version = null; // the table's version shown

  const dollars = window.roomDollars;
  // Which sound a frame makes, and playing it after the player's first click or key:
  // static/js/sounds.js (tested under node, tests/js/).
  const sounds = window.roomSounds.page;
  const cues = window.roomSounds.showdownCues();
  // The viewer's own notes (static/js/player_notes.js), all fetched once: this table's frames
  // name players, and notes are the viewer's, never in a frame.
  const notes = window.playerNotes || null;
  if (notes) {
    notes.onChange(() => { if (state) render(); });
    notes.wantAll();
  }
  const key = () => (crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random().toString(16).slice(2));

  function card(code) {
    const el = document.createElement("span");
    if (!code) { el.className = "card back"; el.setAttribute("aria-label", gettext("card face down")); return el; }
    el.className = "card suit-" + code[1];
    el.dataset.card = code;
    el.innerHTML = "<b>" + (code[0] === "T" ? "10" : code[0]) + "</b><i>" + SUITS[code[1]] + "</i>";
    return el;
  }

  /* One wager on a seat, "HCB $1.00": its abbreviation named in full, its amount whole. */
  function stake(label, name, amount) {
    const el = document.createElement("span");
    el.className = "sdl-stake";
    if (name && name !== label) {
      const abbr = document.createElement("abbr");
      abbr.title = name;
      abbr.textContent = label;
      el.appendChild(abbr);
    } else el.append(label);
    const money = document.createElement("span");
    money.className = "money";
    money.textContent = dollars(amount);
    el.append("\u00a0", money); // the label and its amount on one line
    return el;
  }

  /* On a phone the decision bar stays at the foot of the screen: the seats get the room
   * above it (showdown_live.css) and the page scrolls to them. */
  function roomForTheBar() {
    if (!window.matchMedia("(max-width: 760px)").matches) return;
    root.style.setProperty("--sdl-bar", $("sdl-controls").offsetHeight + "px");
    root.scrollIntoView({ block: "start" });
  }

  function legend() {
    const el = $("sdl-legend");
    const lines = Object.keys(SHORT).filter((k) => SHORT[k] !== WAGERS[k])
      .map((k) => fill(gettext("%(short)s: %(name)s"), { short: SHORT[k], name: WAGERS[k] }));
    el.textContent = lines.join(" · ");
    el.hidden = lines.length === 0;
  }

  function cents(text) {
    const value = String(text || "").trim().replace(/^\$/, "");
    if (value === "") return 0;
    if (!/^\d+(\.\d{1,2})?$/.test(value)) return null;
    return Math.round(parseFloat(value) * 100);
  }

  function say(text, bad) {
    const el = $("sdl-message");
    el.textContent = text || "";
    el.classList.toggle("bad", !!bad);
  }

  function send(frame) {
    if (!socket.send(frame)) say(gettext("Not connected; reconnecting…"), true);
  }

  function tick() {
    const round = state && state.round;
    const el = $("sdl-countdown");
    if (!round || !round.deadline) { el.textContent = ""; return; }
    const left = Math.max(0, Math.ceil((Date.parse(round.deadline) - Date.now()) / 1000));
    sounds.play(cues.tick(state, (Date.parse(round.deadline) - Date.now()) / 1000));
    el.textContent = fill(round.phase === "betting" ? gettext("Cards in %(seconds)s s") : gettext("Decide within %(seconds)s s"), { seconds: left });
    el.classList.toggle("urgent", left <= 5);
  }

  function render() {
    const you = state.you || {};
    const round = state.round;
    const mySeat = you.seat;
    $("sdl-wallet").textContent = dollars(you.wallet || 0);
    root.classList.toggle("seated", mySeat != null);
    const seated = {};
    state.seats.forEach((s) => { seated[s.seat] = s; });
    const inRound = {};
    (round ? round.seats : []).forEach((s) => { inRound[s.seat] = s; });
    root.querySelectorAll(".sdl-seat").forEach((box) => {
      const n = Number(box.dataset.seat);
      const sitter = seated[n];
      // A settled round's seat is free again once its player left: it is
      // offered at once, and someone who sat there since is shown, not the last round's player.
      const settled = round && round.phase === "settled";
      const share = settled && sitter && sitter.player !== inRound[n]?.player ? null : inRound[n];
      const body = box.querySelector(".sdl-seat-body");
      body.textContent = "";
      box.classList.toggle("mine", !!(sitter && sitter.you) || !!(share && share.you));
      const free = !sitter && (!share || settled);
      box.classList.toggle("empty", free);
      const nameEl = box.querySelector(".sdl-seat-name");
      const who = share ? share.player : sitter ? sitter.player : null;
      nameEl.textContent = who || fill(gettext("Seat %(n)s"), { n: n });
      // The viewer's own note on another player, read by the name the table shows (written
      // at the poker tables and on "My notes"): the tag's dot and a pen, what they hold said.
      const mine = (sitter && sitter.you) || (share && share.you);
      const badge = who && !mine && notes ? notes.badge(notes.noteNamed(who), true) : null;
      if (badge) {
        badge.removeAttribute("aria-hidden");
        const said = document.createElement("span");
        said.className = "visually-hidden";
        said.textContent = badge.title;
        badge.append(said);
        nameEl.prepend(badge, " ");
      }
      if (free && mySeat == null) {
        const sit = document.createElement("button");
        sit.type = "button"; sit.textContent = gettext("Sit here"); sit.className = "sdl-sit";
        sit.addEventListener("click", () => send({ type: "sit", seat: n }));
        body.appendChild(sit);
        if (!share) return;
      }
      if (!share) {
        if (sitter) body.appendChild(Object.assign(document.createElement("div"), { className: "help", textContent: round && round.phase !== "settled" ? gettext("sitting out") : gettext("no wagers yet") }));
        return;
      }
      const cards = document.createElement("div");
      cards.className = "sd-cards sdl-hole";
      const hole = share.hole || (round.phase === "betting" ? [] : [null, null, null, null]);
      hole.forEach((c) => cards.appendChild(card(c)));
      body.appendChild(cards);
      const line = document.createElement("div");
      line.className = "sdl-stakes";
      line.appendChild(stake(WAGERS.ante, null, share.ante));
      if (share.hole_card_bonus) line.append(" · ", stake(SHORT.hole_card_bonus, WAGERS.hole_card_bonus, share.hole_card_bonus));
      if (share.final_hand_bonus) line.append(" · ", stake(SHORT.final_hand_bonus, WAGERS.final_hand_bonus, share.final_hand_bonus));
      body.appendChild(line);
      const status = document.createElement("div");
      status.className = "sdl-status";
      if (round.phase === "settled") {
        const net = share.net || 0;
        status.textContent = (DECISIONS[share.decision] || "") + " · " + (share.result ? window.handNames.handName(share.result.final_hand) : "") + " · " + (net >= 0 ? "+" : "") + dollars(net);
        status.classList.add(net > 0 ? "win" : net < 0 ? "loss" : "push");
      } else if (round.phase === "deciding") {
        status.textContent = share.decision ? DECISIONS[share.decision] + (share.bet ? " " + dollars(share.bet) : "") : share.decided ? gettext("decided") : gettext("deciding…");
      }
      body.appendChild(status);
    });
    const board = $("sdl-board");
    board.textContent = "";
    if (round && round.phase !== "betting") {
      (round.board.length ? round.board : [null, null, null, null, null]).forEach((c) => board.appendChild(card(c)));
    }
    const mine = round && round.seats.find((s) => s.you);
    let phase = gettext("Place your wagers to start a round.");
    if (round && round.phase === "betting") phase = fill(ngettext("Betting: %(count)s seat in", "Betting: %(count)s seats in", round.seats.length), { count: round.seats.length });
    else if (round && round.phase === "deciding") phase = gettext("Fold, Call or Raise");
    else if (round && round.phase === "settled") {
      phase = !mine ? gettext("Round settled")
        : mine.net >= 0 ? fill(gettext("Round settled: you won %(amount)s"), { amount: dollars(mine.net) })
          : fill(gettext("Round settled: you lost %(amount)s"), { amount: dollars(-mine.net) });
    }
    $("sdl-phase").textContent = phase;
    // The round's commitment, SHA-256(salt || deck), from its deal on (docs/fairness.md).
    const commitment = round && round.commitment;
    $("sdl-commitment").hidden = !commitment;
    if (commitment) {
      $("sdl-commitment-hash").textContent = commitment.slice(0, 16) + "…";
      $("sdl-commitment-hash").title = commitment;
    }
    const canWager = mySeat != null && (!round || round.phase === "settled" || (round.phase === "betting" && !mine));
    $("sdl-wager").hidden = !canWager;
    const canDecide = !!(mine && round.phase === "deciding" && !mine.decision);
    const deciding = !$("sdl-decide").hidden;
    $("sdl-decide").hidden = !canDecide;
    if (canDecide && !deciding) roomForTheBar();
    if (canDecide) {
      $("sdl-call-cost").textContent = fill(gettext("Bet %(cost)s"), { cost: dollars(mine.ante) });
      $("sdl-raise-cost").textContent = fill(gettext("Bet %(cost)s"), { cost: dollars(2 * mine.ante) });
      root.querySelector('[data-decision="call"]').disabled = (you.wallet || 0) < mine.ante;
      root.querySelector('[data-decision="raise"]').disabled = (you.wallet || 0) < 2 * mine.ante;
    }
    $("sdl-leave").hidden = mySeat == null || !!(mine && round.phase !== "settled");
    if (mySeat == null && state.seats.length >= state.table.seats) say(gettext("The table is full; watch, or come back later."));
    tick();
  }

  /* The public view with the player's own part laid over it (showdown/live_selectors.py
   * `view_merge` does the same for a snapshot). */
  function merged(view) {
    if (!own) return view;
    const seat = own.you.seat;
    view.you = own.you;
    view.seats.forEach((s) => { s.you = s.seat === seat; });
    const hand = own.hand;
    if (hand && view.round && view.round.id === hand.round) {
      view.round.seats.forEach((s) => {
        if (s.seat === hand.seat) Object.assign(s, { you: true, hole: hand.hole, decision: hand.decision, bet: hand.bet });
      });
    }
    return view;
  }

  function ownOf(view) {
    const mine = view.round && view.round.seats.find((s) => s.you);
    return {
      you: view.you || { player: null, seat: null, wallet: 0 },
      hand: mine ? { round: view.round.id, seat: mine.seat, hole: mine.hole || [], decision: mine.decision, bet: mine.bet } : null,
    };
  }

  /* A frame the socket hands on: the `state` frames in order, once each. */
  function onFrame(frame) {
    switch (frame.type) {
      case "snapshot":
        version = frame.version;
        state = frame.state;
        own = ownOf(state);
        render();
        sounds.play(cues.update(state));
        break;
      case "private":
        if (version !== null && frame.version <= version) break; // older than shown
        own = { you: frame.you, hand: frame.hand };
        break;
      case "state":
        version = frame.version;
        state = merged(frame.state);
        render();
        sounds.play(cues.update(state));
        break;
      case "superseded":
        stop(SUPERSEDED);
        break;
      case "error":
        say(frame.message, true);
        break;
      default:
    }
  }

  const SUPERSEDED = gettext("This table is open in another tab or window. This page no longer plays.");

  /* No more play on this page: say why. */
  function stop(message) {
    socket.stop();
    say(message, true);
  }

  const socket = window.tableSocket.create({
    path: "/ws/showdown/" + tableId + "/",
    node: root.dataset.node,
    versioned: "state",
    shown: () => version,
    on: {
      frame: onFrame,
      // A page that reconnected shows its table again (the phase said "Reconnecting…"), even
      // when it missed nothing (a snapshot draws itself).
      hello: (frame) => { if (frame.type === "resync" && state) render(); },
      offline: () => { $("sdl-phase").textContent = gettext("Reconnecting…"); },
      tooMany: (seconds) => say(fill(gettext("Reconnected too often; trying again in %(seconds)s s"), { seconds: seconds }), true),
      closed: (code) => stop({
        [window.tableSocket.CLOSE_SUPERSEDED]: SUPERSEDED,
        [window.tableSocket.CLOSE_UNAUTHENTICATED]: gettext("Sign in again to play."),
        [window.tableSocket.CLOSE_NO_TABLE]: gettext("This table is gone."),
        [window.tableSocket.CLOSE_EXCLUDED]: gettext("You are on a time-out or self-exclusion: no play until it ends."),
      }[code]),
    },
  });

  $("sdl-wager").addEventListener("submit", (event) => {
    event.preventDefault();
    const form = event.target;
    const wagers = {};
    for (const name of ["ante", "hole_card_bonus", "final_hand_bonus"]) {
      const value = cents(form.elements[name].value);
      if (value === null) { say(fill(gettext("%(wager)s: write an amount in dollars, such as 5 or 5.50."), { wager: WAGERS[name] }), true); return; }
      wagers[name] = value;
    }
    say("");
    send(Object.assign({ type: "wager", key: key() }, wagers));
  });
  $("sdl-decide").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-decision]");
    if (!button || button.disabled) return;
    $("sdl-decide").hidden = true;
    send({ type: "decide", decision: button.dataset.decision, key: key() });
  });
  $("sdl-leave").addEventListener("click", () => send({ type: "leave" }));
  document.addEventListener("keydown", (event) => {
    if ($("sdl-decide").hidden || event.target.matches("input, textarea")) return;
    const decision = { f: "fold", c: "call", r: "raise" }[event.key.toLowerCase()];
    const button = decision && root.querySelector('[data-decision="' + decision + '"]');
    if (button) button.click();
  });
  legend();
  setInterval(tick, 250);
  socket.connect();
})();
