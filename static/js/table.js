/* The table page: one WebSocket to /ws/tables/<id>/, and the page drawn from the STATE the server
 * sends each recipient (docs/protocol.md). The server decides everything; this file only shows
 * the state and sends the player's choices. Plain JavaScript, no build step.
 */
(function () {
  "use strict";

  const config = JSON.parse(document.getElementById("table-config").textContent);
  const $ = (id) => document.getElementById(id);
  const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };
  const SUIT_NAMES = { s: "spades", h: "hearts", d: "diamonds", c: "clubs" };
  const RANK_NAMES = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };
  const CLOSE_SUPERSEDED = 4409;
  const CLOSE_UNAUTHENTICATED = 4401;
  const CLOSE_NO_TABLE = 4404;
  const CLOSE_EXCLUDED = 4403; // a time-out or self-exclusion (responsible gaming)
  // Too many sockets from this player to this table in the server's window (a minute): wait
  // the window out before one more try, instead of the usual quick backoff.
  const CLOSE_TOO_MANY_RECONNECTS = 4429;
  const TOO_MANY_RECONNECTS_WAIT_MS = 60000;
  const LOG_LIMIT = 200;

  let socket = null;
  let state = null;
  let names = {}; // seat number -> display name, kept from the latest state
  let retries = 0;
  let reconnectTimer = null;
  let pingTimer = null;
  let stopped = false; // superseded or refused: no reconnect
  // Sequence numbers only ever grow within this tab, across reconnects and reloads, so the
  // server can refuse a stale or duplicated action.
  let seq = Number(sessionStorage.getItem("table-seq-" + config.table_id) || 0);
  let pendingTurn = null; // the turn we already acted on, until the state moves on
  let sitSeat = null;
  let sitKey = null;
  const baseTitle = document.title;
  let clockOffset = 0; // this device's clock minus the server's, in ms

  // ------------------------------------------------------------------ money and cards

  function money(cents) {
    if (cents === null || cents === undefined) return "";
    const sign = cents < 0 ? "-" : "";
    const abs = Math.abs(cents);
    const dollars = Math.floor(abs / 100).toLocaleString("en-US");
    const rest = abs % 100;
    return sign + "$" + dollars + (rest ? "." + String(rest).padStart(2, "0") : "");
  }

  function dollarsValue(cents) {
    return (cents / 100).toFixed(2);
  }

  function toCents(text) {
    const value = Number(String(text).trim());
    if (!Number.isFinite(value)) return null;
    return Math.round(value * 100);
  }

  /* An idempotency key for one money movement (sit, top-up): 32 random hex digits. */
  function clientKey() {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function cardLabel(card) {
    return (RANK_NAMES[card[0]] || card[0]) + SUITS[card[1]];
  }

  function cardEl(card) {
    const el = document.createElement("span");
    if (!card) {
      el.className = "card back";
      el.setAttribute("aria-label", "hidden card");
      return el;
    }
    el.className = "card suit-" + card[1];
    el.dataset.card = card;
    el.setAttribute("aria-label", (RANK_NAMES[card[0]] || card[0]) + " of " + SUIT_NAMES[card[1]]);
    const rank = document.createElement("b");
    rank.textContent = RANK_NAMES[card[0]] || card[0];
    const suit = document.createElement("i");
    suit.textContent = SUITS[card[1]];
    el.append(rank, suit);
    return el;
  }

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function nameOf(seat) {
    return names[seat] || "Seat " + seat;
  }

  // ------------------------------------------------------------------ the socket

  function socketUrl() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    return scheme + location.host + config.ws_path;
  }

  function connect() {
    if (stopped) return;
    clearTimeout(reconnectTimer);
    setConnection("connecting", retries ? "Reconnecting…" : "Connecting…");
    socket = new WebSocket(socketUrl());
    socket.addEventListener("message", (event) => {
      if (event.target !== socket) return; // a socket the watchdog gave up on
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      onFrame(frame);
    });
    socket.addEventListener("close", (event) => {
      if (event.target === socket) onClose(event.code);
    });
  }

  function onClose(code) {
    clearInterval(pingTimer);
    socket = null;
    watchdogReset();
    if (code === CLOSE_SUPERSEDED) {
      stop("This table is open in another tab or window. This page no longer plays.");
      return;
    }
    if (code === CLOSE_UNAUTHENTICATED) {
      stop("You are logged out. Log in again to play.");
      return;
    }
    if (code === CLOSE_NO_TABLE) {
      stop("This table does not exist any more.");
      return;
    }
    if (code === CLOSE_EXCLUDED) {
      if (!stopped) stop("You are on a time-out or self-exclusion: no play until it ends.");
      return;
    }
    if (stopped) return;
    if (code === CLOSE_TOO_MANY_RECONNECTS) {
      const wait = TOO_MANY_RECONNECTS_WAIT_MS * (1 + Math.random() * 0.25);
      retries += 1;
      const seconds = Math.ceil(wait / 1000);
      setConnection("offline", "Reconnected too often; trying again in " + seconds + " s");
      reconnectTimer = setTimeout(connect, wait);
      return;
    }
    const delay = Math.min(15000, 500 * 2 ** retries) * (0.75 + Math.random() * 0.5);
    retries += 1;
    setConnection("offline", "Offline, reconnecting in " + Math.ceil(delay / 1000) + " s");
    reconnectTimer = setTimeout(connect, delay);
  }

  function stop(message) {
    stopped = true;
    setConnection("stopped", "Not connected");
    const notice = $("notice");
    notice.textContent = message;
    notice.hidden = false;
    $("actions").hidden = true;
    if (socket) socket.close();
  }

  function send(frame) {
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      toast("Not connected to the table; your choice was not sent.");
      return false;
    }
    socket.send(JSON.stringify(frame));
    return true;
  }

  function setConnection(kind, text) {
    $("room").dataset.state = kind;
    const conn = $("conn");
    conn.textContent = text;
    conn.className = "conn " + kind;
  }

  function onFrame(frame) {
    switch (frame.type) {
      case "snapshot": {
        const asked = snapshotAnswered(frame);
        retries = 0;
        setConnection("online", "Connected");
        clearInterval(pingTimer);
        pingTimer = setInterval(() => send({ type: "ping" }), 25000);
        // One the watchdog asked for is drawn only if the page had fallen behind.
        if (!asked || !state || frame.state.version > state.version) render(frame.state);
        break;
      }
      case "heartbeat":
        onHeartbeat(frame);
        break;
      case "update":
        heardAt = Date.now();
        (frame.events || []).forEach(logEvent);
        syncClock(frame.state);
        render(frame.state);
        break;
      case "error":
        pendingTurn = null;
        toast(frame.message || frame.code, "error");
        if (state) render(state);
        break;
      case "superseded":
        stop("This table is open in another tab or window. This page no longer plays.");
        break;
      case "excluded":
        stop(frame.message);
        break;
      default:
        break; // pong and anything newer than this page
    }
  }

  // ------------------------------------------------------------------ the watchdog

  /* A socket can stay open and hear nothing: when the channel layer's Redis loses its data the
   * server's sockets fall out of the table's group. The room sends a heartbeat with the table's
   * version through that group every `heartbeat_seconds` (docs/protocol.md). A page that hears
   * nothing through the group for two beats, or hears of a version newer than the one it shows,
   * asks for a snapshot (the server re-joins the socket to its groups as it answers); a socket
   * that does not answer that is dropped and a new one opened. An update with a version gap
   * needs nothing: each update carries the whole STATE. */
  const ANSWER_MS = 5000; // a snapshot asked for and not answered by then: the socket is dead
  const ASK_EVERY_MS = 2000; // the server refuses more than one request a second
  const BEHIND_GRACE_MS = 1500; // an update sent just before the heartbeat may still be coming
  let heartbeatMs = 0; // 0 until the first snapshot says; the server sends none: no watchdog
  let heardAt = 0; // when the table's group last reached this page
  let snapshotAskedAt = 0; // when the watchdog asked and got no answer yet (0: not waiting)
  let lastAskAt = 0;
  let behindTimer = null;

  function watchdogReset() {
    snapshotAskedAt = 0;
    clearTimeout(behindTimer);
    behindTimer = null;
  }

  /* True if this snapshot answers the watchdog's request. */
  function snapshotAnswered(frame) {
    const asked = snapshotAskedAt !== 0;
    watchdogReset();
    heardAt = Date.now();
    heartbeatMs = (Number(frame.heartbeat_seconds) || 0) * 1000;
    return asked;
  }

  function onHeartbeat(frame) {
    heardAt = Date.now();
    if (!state || !(frame.version > state.version) || behindTimer) return;
    behindTimer = setTimeout(() => {
      behindTimer = null;
      if (state && state.version < frame.version) askSnapshot();
    }, BEHIND_GRACE_MS);
  }

  function askSnapshot() {
    const now = Date.now();
    if (!socket || socket.readyState !== WebSocket.OPEN || snapshotAskedAt) return;
    if (now - lastAskAt < ASK_EVERY_MS) return;
    snapshotAskedAt = lastAskAt = now;
    socket.send(JSON.stringify({ type: "snapshot" }));
  }

  function watch() {
    if (!socket || socket.readyState !== WebSocket.OPEN || !heartbeatMs) return;
    const now = Date.now();
    if (snapshotAskedAt && now - snapshotAskedAt > ANSWER_MS) {
      const dead = socket;
      onClose(1006); // forgets `dead` and reconnects as after any drop
      dead.close();
    } else if (now - heardAt > 2 * heartbeatMs + 2000) {
      askSnapshot();
    }
  }

  // ------------------------------------------------------------------ drawing the state

  function render(next) {
    if (state && next.version !== undefined && state.version !== undefined &&
        next.version < state.version) {
      return; // an older frame arriving late; the page already shows newer
    }
    state = next;
    if (state.you && state.you.last_seq > seq) seq = state.you.last_seq;
    names = {};
    const last = state.last_result;
    if (last && last.players) {
      Object.entries(last.players).forEach(([seat, name]) => (names[seat] = name));
    }
    state.seats.forEach((s) => {
      if (s.player) names[s.seat] = s.player.display_name;
    });
    if (pendingTurn !== null && (!state.hand || state.hand.turn !== pendingTurn)) {
      pendingTurn = null;
    }
    const you = state.you || {};
    $("wallet").textContent = you.wallet !== undefined && you.wallet !== null
      ? "Wallet " + money(you.wallet) : "";
    renderSeats();
    renderCenter();
    renderActions();
    renderSeatControls();
    renderResult();
    tick();
  }

  function handSeatMap() {
    const map = {};
    if (state.hand) state.hand.seats.forEach((s) => (map[s.seat] = s));
    return map;
  }

  function shownMap(result) {
    const map = {};
    if (result && result.showdown) {
      result.showdown.forEach((entry) => {
        if (entry.shown) map[entry.seat] = entry;
      });
    }
    return map;
  }

  function winnersOf(result) {
    const won = {};
    if (!result) return won;
    (result.pots || []).forEach((pot) => {
      [...(pot.high || []), ...(pot.low || [])].forEach((share) => {
        won[share.seat] = (won[share.seat] || 0) + share.amount;
      });
    });
    return won;
  }

  /* Seats go round an ellipse, the viewer's own seat (or seat 1) at the bottom, clockwise. */
  function seatPosition(index, count) {
    const angle = Math.PI / 2 + (index * 2 * Math.PI) / count;
    return { x: 50 + 41 * Math.cos(angle), y: 50 + 39 * Math.sin(angle) };
  }

  function renderSeats() {
    const container = $("seats");
    container.replaceChildren();
    const table = state.table;
    const hand = state.hand;
    const handSeats = handSeatMap();
    // Between hands the seats keep showing the last showdown: cards shown and who won.
    const previous = lastResult();
    const settled = previous && !previous.cancelled ? previous : null;
    const result = hand ? hand.result : settled;
    const shown = shownMap(result);
    const won = winnersOf(result);
    const mySeat = state.you ? state.you.seat : null;
    const anchor = mySeat || 1;
    const count = table.max_seats;
    $("felt").classList.toggle("many", count > 6);
    state.seats.forEach((s) => {
      const index = (s.seat - anchor + count) % count;
      const pos = seatPosition(index, count);
      const inHand = handSeats[s.seat];
      const node = el("div", "seat");
      node.id = "seat-" + s.seat;
      node.dataset.seat = s.seat;
      node.dataset.status = s.status;
      node.style.left = pos.x + "%";
      node.style.top = pos.y + "%";
      if (pos.y < 50) node.classList.add("upper");
      if (!s.player) {
        node.classList.add("empty");
        if (mySeat === null || mySeat === undefined) {
          const button = el("button", "sit-here", "Sit here");
          button.type = "button";
          button.dataset.seat = s.seat;
          button.setAttribute("aria-label", "Sit at seat " + s.seat);
          button.addEventListener("click", () => openSitDialog(s.seat));
          node.append(button);
        } else {
          node.append(el("span", "seat-empty", "Empty"));
        }
        container.append(node);
        return;
      }
      if (s.seat === mySeat) node.classList.add("me");
      if (hand && hand.to_act === s.seat && !result) node.classList.add("to-act");
      if (inHand && inHand.folded) node.classList.add("folded");
      if (won[s.seat] && (hand || samePlayer(s))) node.classList.add("winner");
      if (!s.connected) node.classList.add("disconnected");

      const cards = el("div", "hole");
      if (inHand && !inHand.folded) {
        const faces = inHand.cards || (shown[s.seat] && shown[s.seat].cards);
        if (faces) faces.forEach((c) => cards.append(cardEl(c)));
        else for (let k = 0; k < 4; k += 1) cards.append(cardEl(null));
      } else if (!hand && shown[s.seat] && samePlayer(s)) {
        shown[s.seat].cards.forEach((c) => cards.append(cardEl(c)));
      }
      node.append(cards);

      const plate = el("div", "plate");
      plate.append(el("span", "seat-name", s.player.display_name));
      const stack = inHand ? inHand.stack : s.stack;
      const stackEl = el("span", "seat-stack", money(stack));
      stackEl.dataset.cents = stack;
      plate.append(stackEl);
      const badges = [];
      if (inHand && inHand.all_in) badges.push(["all-in", "All-in"]);
      if (inHand && inHand.folded) badges.push(["folded", "Folded"]);
      if (s.status === "sitting_out") badges.push(["out", "Sitting out"]);
      if (s.status === "waiting_big_blind") badges.push(["waiting", "Waits for BB"]);
      if (!s.connected) badges.push(["offline", "Disconnected"]);
      if (won[s.seat] && (hand || samePlayer(s))) badges.push(["won", "Won " + money(won[s.seat])]);
      badges.forEach(([kind, text]) => plate.append(el("span", "badge " + kind, text)));
      if (shown[s.seat] && (hand || samePlayer(s))) {
        const entry = shown[s.seat];
        const label = [entry.high && entry.high.name, entry.low && entry.low.name]
          .filter(Boolean)
          .join(" · ");
        if (label) plate.append(el("span", "hand-name", label));
      }
      const timer = el("span", "timer");
      timer.hidden = true;
      plate.append(timer);
      node.append(plate);

      if (inHand && inHand.bet) {
        const bet = el("div", "bet", money(inHand.bet));
        bet.style.left = 50 + (pos.x - 50) * 0.55 + "%";
        bet.style.top = 50 + (pos.y - 50) * 0.5 + "%";
        bet.dataset.seat = s.seat;
        container.append(bet);
      }
      if (hand && hand.button === s.seat) {
        const button = el("div", "dealer", "D");
        button.title = "Dealer button";
        button.style.left = 50 + (pos.x - 50) * 0.72 + (pos.x < 50 ? 6 : -6) + "%";
        button.style.top = 50 + (pos.y - 50) * 0.72 + "%";
        container.append(button);
      }
      container.append(node);
    });
  }

  /* Is the player in this seat the one who sat there in the last finished hand? */
  function samePlayer(seat) {
    const last = state.last_result;
    if (!last || !last.players) return true;
    return Boolean(seat.player) && last.players[seat.seat] === seat.player.display_name;
  }

  /* Main and side pots while a hand runs: one pot per all-in level (RULES.md 7), the rest of
   * the chips in the last one. Bets not yet called stay in the last pot until the round ends. */
  function potsOf(handSeats) {
    const caps = [...new Set(handSeats.filter((s) => !s.folded && s.all_in).map((s) => s.committed))]
      .sort((a, b) => a - b);
    const pots = [];
    let below = 0;
    caps.forEach((level) => {
      let amount = 0;
      handSeats.forEach((s) => {
        if (s.committed > below) amount += Math.min(s.committed, level) - below;
      });
      if (amount) pots.push(amount);
      below = level;
    });
    const rest = handSeats.reduce((sum, s) => sum + Math.max(0, s.committed - below), 0);
    if (rest) pots.push(rest);
    return pots;
  }

  function renderCenter() {
    const hand = state.hand;
    const board = $("board");
    board.replaceChildren();
    const previous = lastResult();
    const cards = hand ? hand.board : (previous && !previous.cancelled && previous.board) || [];
    cards.forEach((c) => board.append(cardEl(c)));
    const pots = $("pots");
    pots.replaceChildren();
    const message = $("table-message");
    if (hand && !hand.result) {
      // Chips already gathered in the middle, and this street's bets still in front of seats.
      const split = potsOf(hand.seats);
      const betsOut = hand.seats.reduce((sum, s) => sum + s.bet, 0);
      if (split.length > 1) {
        split.forEach((amount, k) =>
          pots.append(el("span", "pot", (k ? "Side pot " + k : "Main pot") + " " + money(amount))),
        );
      }
      const total = el("span", "pot total", "Pot " + money(hand.pot));
      total.id = "pot-total";
      pots.append(total);
      if (betsOut && split.length <= 1) total.title = money(betsOut) + " in bets this round";
      message.textContent = streetLabel(hand.street);
    } else if (hand && hand.result) {
      hand.result.pots.forEach((pot, k) =>
        pots.append(el("span", "pot", (k ? "Side pot " + k : "Pot") + " " + money(pot.amount))),
      );
      message.textContent = "Hand over";
    } else {
      if (previous && !previous.cancelled) {
        (previous.pots || []).forEach((pot, k) =>
          pots.append(el("span", "pot", (k ? "Side pot " + k : "Pot") + " " + money(pot.amount))),
        );
      }
      const ready = state.seats.filter((s) => s.player && s.status !== "sitting_out").length;
      message.textContent = ready < 2 ? "Waiting for players" : "The next hand starts shortly";
    }
  }

  function streetLabel(street) {
    return { preflop: "Preflop", flop: "Flop", turn: "Turn", river: "River" }[street] || street;
  }

  function lastResult() {
    if (state.hand && state.hand.result) return state.hand.result;
    const last = state.last_result;
    if (!last) return null;
    return last.result || last;
  }

  // ------------------------------------------------------------------ your turn

  function legal() {
    const hand = state && state.hand;
    if (!hand || hand.result || !hand.legal_actions) return null;
    if (!state.you || hand.legal_actions.seat !== state.you.seat) return null;
    return hand.legal_actions;
  }

  function renderActions() {
    const actions = $("actions");
    const options = stopped ? null : legal();
    const turnEl = $("turn");
    const hand = state.hand;
    if (hand && !hand.result && hand.to_act) {
      turnEl.textContent = options
        ? "Your turn"
        : nameOf(hand.to_act) + " to act";
      turnEl.classList.toggle("mine", Boolean(options));
    } else {
      turnEl.textContent = "";
      turnEl.classList.remove("mine");
    }
    document.title = (options ? "▶ Your turn · " : "") + baseTitle;
    if (!options) {
      actions.hidden = true;
      return;
    }
    actions.hidden = false;
    const waiting = pendingTurn === hand.turn;
    const setButton = (id, show, label) => {
      const button = $(id);
      button.hidden = !show;
      button.disabled = waiting;
      if (label) button.textContent = label;
    };
    const mine = hand.seats.find((s) => s.seat === options.seat);
    setButton("act-fold", options.fold, "Fold");
    setButton("act-check", options.check, "Check");
    const callAllIn = options.call && mine && options.call >= mine.stack;
    setButton("act-call", Boolean(options.call), "Call " + money(options.call) + (callAllIn ? " (all-in)" : ""));
    const span = options.bet || options.raise;
    const kind = options.bet ? "bet" : "raise";
    const sizing = $("sizing");
    if (span) {
      const slider = $("raise-slider");
      const box = $("raise-amount");
      const fixed = span.min === span.max;
      sizing.hidden = fixed;
      slider.min = span.min;
      slider.max = span.max;
      slider.step = 1;
      box.min = dollarsValue(span.min);
      box.max = dollarsValue(span.max);
      const kept = Number($("act-raise").dataset.amount);
      const amount = $("act-raise").dataset.turn === String(hand.turn) && kept >= span.min && kept <= span.max
        ? kept : span.min;
      setRaise(amount, kind, hand.turn);
      const potLimit = state.table.structure === "pot-limit";
      $("preset-pot").hidden = !potLimit;
      $("preset-half").hidden = !potLimit;
      $("preset-max").hidden = potLimit;
    } else {
      sizing.hidden = true;
    }
    setButton("act-raise", Boolean(span));
    // All-in as its own button only when it differs from the top of the slider or the call.
    const allInDistinct = options.all_in && (!span || options.all_in !== span.max) && !callAllIn;
    setButton("act-all-in", Boolean(allInDistinct), "All-in " + money(options.all_in));
    $("raise-slider").disabled = waiting;
    $("raise-amount").disabled = waiting;
  }

  function setRaise(amount, kind, turn) {
    const options = legal();
    const span = options && (options.bet || options.raise);
    if (!span) return;
    const mine = state.hand.seats.find((s) => s.seat === options.seat);
    const clamped = Math.max(span.min, Math.min(span.max, Math.round(amount)));
    const button = $("act-raise");
    button.dataset.amount = clamped;
    button.dataset.turn = turn;
    button.dataset.kind = kind || (options.bet ? "bet" : "raise");
    const allIn = mine && clamped === mine.bet + mine.stack;
    const verb = button.dataset.kind === "bet" ? "Bet " : "Raise to ";
    button.textContent = verb + money(clamped) + (allIn ? " (all-in)" : "");
    $("raise-slider").value = clamped;
    if (document.activeElement !== $("raise-amount")) {
      $("raise-amount").value = dollarsValue(clamped);
    }
  }

  function act(action, amount) {
    const hand = state && state.hand;
    if (!hand || !legal() || pendingTurn === hand.turn) return;
    seq += 1;
    sessionStorage.setItem("table-seq-" + config.table_id, String(seq));
    const sent = send({
      type: "act",
      action: action,
      amount: amount === undefined ? null : amount,
      turn: hand.turn,
      seq: seq,
    });
    if (sent) {
      pendingTurn = hand.turn;
      renderActions();
    }
  }

  function bindActions() {
    ["act-fold", "act-check", "act-call", "act-all-in"].forEach((id) => {
      $(id).addEventListener("click", () => act($(id).dataset.action));
    });
    $("act-raise").addEventListener("click", () => {
      const button = $("act-raise");
      act(button.dataset.kind, Number(button.dataset.amount));
    });
    $("raise-slider").addEventListener("input", (event) => {
      setRaise(Number(event.target.value), null, state.hand.turn);
    });
    $("raise-amount").addEventListener("change", (event) => {
      const cents = toCents(event.target.value);
      if (cents !== null) setRaise(cents, null, state.hand.turn);
      $("raise-amount").value = dollarsValue(Number($("act-raise").dataset.amount));
    });
    $("raise-amount").addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.target.dispatchEvent(new Event("change"));
        $("act-raise").click();
      }
    });
    const span = () => {
      const options = legal();
      return options && (options.bet || options.raise);
    };
    $("preset-min").addEventListener("click", () => span() && setRaise(span().min, null, state.hand.turn));
    $("preset-max").addEventListener("click", () => span() && setRaise(span().max, null, state.hand.turn));
    $("preset-pot").addEventListener("click", () => span() && setRaise(span().max, null, state.hand.turn));
    $("preset-half").addEventListener("click", () => {
      const s = span();
      if (!s) return;
      // Half of a pot-sized raise: halfway between calling and the pot-limit maximum.
      const callTo = state.hand.current_bet;
      setRaise(callTo + (s.max - callTo) / 2, null, state.hand.turn);
    });
  }

  // ------------------------------------------------------------------ countdown

  /* The server's deadlines are in its clock; a phone's clock may be off by seconds. A frame that
   * opens a new turn was sent as that turn started (countdown_at minus the plain seconds), so
   * its arrival time gives the offset between the two clocks (plus the network delay). */
  function syncClock(next) {
    const hand = next.hand;
    if (!hand || !hand.countdown_at || hand.result) return;
    if (state && state.hand && state.hand.id === hand.id && state.hand.turn === hand.turn) return;
    const plain = (next.table.action_seconds - next.table.countdown_seconds) * 1000;
    const started = Date.parse(hand.countdown_at) - plain;
    const offset = Date.now() - started;
    if (Number.isFinite(offset) && Math.abs(offset) < 10 * 60 * 1000) clockOffset = offset;
  }

  function serverNow() {
    return Date.now() - clockOffset;
  }

  function tick() {
    if (!state) return;
    const hand = state.hand;
    document.querySelectorAll(".seat .timer").forEach((t) => (t.hidden = true));
    const turnTimer = $("turn");
    delete turnTimer.dataset.seconds;
    if (!hand || hand.result || !hand.deadline || !hand.to_act) return;
    const left = (Date.parse(hand.deadline) - serverNow()) / 1000;
    const countdownFrom = hand.countdown_at
      ? (Date.parse(hand.deadline) - Date.parse(hand.countdown_at)) / 1000
      : state.table.countdown_seconds;
    const seat = document.getElementById("seat-" + hand.to_act);
    if (!seat) return;
    const timer = seat.querySelector(".timer");
    const seconds = Math.max(0, Math.ceil(left));
    if (left <= countdownFrom) {
      timer.hidden = false;
      timer.textContent = seconds + "s";
      timer.classList.toggle("urgent", left <= 5);
      timer.style.setProperty("--left", Math.max(0, left / countdownFrom));
      turnTimer.dataset.seconds = seconds;
    }
  }

  // ------------------------------------------------------------------ seat controls

  function renderSeatControls() {
    const you = state.you || {};
    const seated = you.seat !== null && you.seat !== undefined;
    $("seat-controls").hidden = !seated || stopped;
    $("spectator-hint").hidden = seated || stopped || !state.seats.some((s) => !s.player);
    if (!seated) return;
    const mine = state.seats.find((s) => s.seat === you.seat);
    const out = Boolean(you.sitting_out) || (mine && mine.status === "sitting_out");
    $("sit-out").hidden = out;
    $("sit-in").hidden = !out;
    $("post-bb-wrap").hidden = !out;
    const handSeat = state.hand && !state.hand.result
      ? state.hand.seats.find((s) => s.seat === you.seat) : null;
    $("post-bb-now").hidden = out || you.status !== "waiting_big_blind";
    $("wait-bb").hidden = out || !you.posts_big_blind || Boolean(handSeat);
    const topUp = $("top-up-form");
    const range = you.buy_in_range || [state.table.min_buy_in, state.table.max_buy_in];
    const stack = mine ? mine.stack : 0;
    const room = range ? range[1] - stack : 0;
    topUp.hidden = Boolean(handSeat) || !range || room <= 0;
    if (!topUp.hidden) {
      const input = $("top-up-amount");
      input.max = dollarsValue(Math.min(room, you.wallet));
      input.placeholder = "up to " + dollarsValue(Math.min(room, you.wallet));
    }
  }

  function openSitDialog(seat) {
    const you = state.you || {};
    const range = you.buy_in_range || [state.table.min_buy_in, state.table.max_buy_in];
    sitSeat = seat;
    sitKey = clientKey(); // one per dialog: a double submit moves money once
    $("sit-seat").textContent = seat;
    const high = Math.min(range[1], you.wallet ?? range[1]);
    $("sit-range").textContent =
      "Buy in between " + money(range[0]) + " and " + money(range[1]) +
      (you.wallet !== undefined ? ". Your wallet holds " + money(you.wallet) + "." : ".");
    const input = $("sit-buy-in");
    input.min = dollarsValue(range[0]);
    input.max = dollarsValue(range[1]);
    input.value = dollarsValue(Math.max(range[0], high));
    $("sit-error").textContent = "";
    const dialog = $("sit-dialog");
    if (typeof dialog.showModal === "function") dialog.showModal();
    else dialog.setAttribute("open", "");
    input.focus();
  }

  function bindSeatControls() {
    $("sit-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const you = state.you || {};
      const range = you.buy_in_range || [state.table.min_buy_in, state.table.max_buy_in];
      const cents = toCents($("sit-buy-in").value);
      if (cents === null || cents < range[0] || cents > range[1]) {
        $("sit-error").textContent =
          "The buy-in must be between " + money(range[0]) + " and " + money(range[1]) + ".";
        return;
      }
      if (you.wallet !== undefined && cents > you.wallet) {
        $("sit-error").textContent = "Your wallet holds only " + money(you.wallet) + ".";
        return;
      }
      const post = document.querySelector('input[name="bb"]:checked').value === "post";
      if (send({ type: "sit", seat: sitSeat, buy_in: cents, post_big_blind: post, key: sitKey })) {
        $("sit-dialog").close();
      }
    });
    $("sit-cancel").addEventListener("click", () => $("sit-dialog").close());
    $("sit-out").addEventListener("click", () => send({ type: "sit_out" }));
    $("sit-in").addEventListener("click", () =>
      send({ type: "sit_in", post_big_blind: $("sit-in-post-bb").checked }),
    );
    $("post-bb-now").addEventListener("click", () => send({ type: "post_big_blind" }));
    $("wait-bb").addEventListener("click", () => send({ type: "wait_big_blind" }));
    $("top-up-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const cents = toCents($("top-up-amount").value);
      if (!cents || cents <= 0) {
        toast("Enter the amount to add, in dollars.");
        return;
      }
      if (send({ type: "top_up", amount: cents, key: clientKey() })) {
        $("top-up-amount").value = ""; // a second click finds no amount: one top-up per entry
      }
    });
    $("leave").addEventListener("click", () => {
      const inHand = state.hand && !state.hand.result &&
        state.hand.seats.some((s) => s.seat === state.you.seat && !s.folded);
      const question = inHand
        ? "Leave the table? Your hand is folded and your chips go back to your wallet."
        : "Leave the table? Your chips go back to your wallet.";
      if (window.confirm(question)) send({ type: "leave" });
    });
  }

  // ------------------------------------------------------------------ result and log

  function renderResult() {
    const result = lastResult();
    const section = $("result");
    if (!result) {
      section.hidden = true;
      return;
    }
    section.hidden = false;
    const body = $("result-body");
    body.replaceChildren();
    const handNumber = state.hand && state.hand.result
      ? state.hand.number || state.hand.id
      : state.last_result && (state.last_result.number || state.last_result.hand_id);
    if (handNumber) body.append(el("p", "result-hand", "Hand #" + handNumber));
    if (result.cancelled) {
      body.append(el("p", "result-line cancelled", "Cancelled: " + (result.reason || "the hand could not go on") +
        " Every bet went back to its owner."));
      return;
    }
    const shown = shownMap(result);
    const list = el("ul", "result-lines");
    resultLines(result, shown).forEach((line) => list.append(el("li", "result-line", line)));
    body.append(list);
    if (result.board && result.board.length) {
      const board = el("div", "result-board");
      result.board.forEach((c) => board.append(cardEl(c)));
      body.append(board);
    }
    Object.values(shown).forEach((entry) => {
      const row = el("div", "result-shown");
      row.append(el("span", "who", nameOf(entry.seat)));
      const cards = el("span", "cards");
      entry.cards.forEach((c) => cards.append(cardEl(c)));
      row.append(cards);
      row.append(el("span", "hand-name", [entry.high && entry.high.name, entry.low && entry.low.name]
        .filter(Boolean).join(" · ")));
      body.append(row);
    });
  }

  function joinNames(seats) {
    const list = seats.map(nameOf);
    if (list.length <= 1) return list.join("");
    return list.slice(0, -1).join(", ") + " and " + list[list.length - 1];
  }

  /* One sentence per pot and side: who won how much, and with which hand. */
  function resultLines(result, shown) {
    const lines = [];
    const contested = (result.showdown || []).length > 0;
    const many = (result.pots || []).length > 1;
    (result.pots || []).forEach((pot, k) => {
      const potName = many ? (k ? "side pot " + k : "the main pot") : "the pot";
      const sides = [["high", pot.high || []], ["low", pot.low || []]];
      const hiLo = (pot.low || []).length > 0;
      sides.forEach(([side, shares]) => {
        if (!shares.length) return;
        const seats = shares.map((s) => s.seat);
        const total = shares.reduce((sum, s) => sum + s.amount, 0);
        const verb = seats.length > 1 ? " split " : " wins ";
        const part = hiLo ? (side === "high" ? "the high half of " : "the low half of ") : "";
        let line = joinNames(seats) + verb + money(total) + " from " + part + potName;
        const entry = shown[seats[0]];
        const value = entry && entry[side];
        if (contested && value) line += " with " + value.name;
        else if (!contested) line += " (uncontested)";
        lines.push(line);
      });
    });
    if (result.rake) lines.push("Rake " + money(result.rake));
    return lines;
  }

  function describe(event) {
    const who = event.seat !== undefined ? nameOf(event.seat) : "";
    const allIn = event.all_in ? " (all-in)" : "";
    switch (event.type) {
      case "hand_started":
        return "New hand. " + nameOf(event.button) + " has the button.";
      case "blind_posted":
        return who + " posts the " + event.blind + " blind " + money(event.amount) + allIn;
      case "hole_cards_dealt": {
        const mine = (event.hole_cards || []).find((pair) => pair[1]);
        return mine ? "Dealt to you: " + mine[1].map(cardLabel).join(" ") : "Cards are dealt.";
      }
      case "action":
        switch (event.action) {
          case "fold": return who + " folds";
          case "check": return who + " checks";
          case "call": return who + " calls " + money(event.added) + allIn;
          case "bet": return who + " bets " + money(event.to) + allIn;
          case "raise": return who + " raises to " + money(event.to) + allIn;
          case "all_in": return who + " goes all-in for " + money(event.to);
          default: return who + " " + event.action;
        }
      case "uncalled_bet_returned":
        return money(event.amount) + " uncalled, back to " + who;
      case "street_dealt":
        return streetLabel(event.street) + ": " + event.cards.map(cardLabel).join(" ");
      case "showdown":
        return "Showdown.";
      case "cards_shown":
        return who + " shows " + event.cards.map(cardLabel).join(" ") + " — " +
          [event.high, event.low].filter(Boolean).join(" · ");
      case "cards_mucked":
        return who + " mucks";
      case "pot_awarded": {
        const shares = [...(event.high || []), ...(event.low || [])];
        const parts = shares.map((s) => nameOf(s.seat) + " " + money(s.amount));
        return (event.pot ? "Side pot " + event.pot : "Pot") + " " + money(event.amount) +
          ": " + parts.join(", ");
      }
      case "hand_ended":
        return "Hand over." + (event.rake ? " Rake " + money(event.rake) + "." : "");
      case "player_sat":
        return (event.player ? event.player.display_name : who) + " sits down at seat " + event.seat +
          (event.status === "waiting_big_blind" ? ", waiting for the big blind" : "");
      case "player_left":
        return (event.player ? event.player.display_name : who) + " leaves the table" +
          (event.reason === "sit_out_limit" ? " (sat out too long)" : "");
      case "player_sat_out":
        return who + " sits out" + ({ timeout: " (ran out of time)", no_chips: " (no chips left)" }[event.reason] || "");
      case "player_sat_in":
        return who + " is back" + (event.status === "waiting_big_blind" ? ", waiting for the big blind" : "");
      case "big_blind_choice":
        return who + (event.posts_big_blind
          ? " posts a big blind to play the next hand"
          : " waits for the big blind");
      case "button_drawn": {
        const draws = Object.entries(event.cards || {})
          .map(([seat, card]) => nameOf(seat) + " " + cardLabel(card));
        return "Draw for the button: " + draws.join(", ") + ". " + nameOf(event.button) +
          " gets it.";
      }
      case "player_leaving":
        return who + " leaves after this hand";
      case "player_topped_up":
        return who + " adds " + money(event.amount);
      case "player_connection":
        return who + (event.connected ? " is connected" : " lost the connection");
      case "timeout":
        return who + " ran out of time and " + (event.action === "check" ? "checks" : "folds");
      case "hand_cancelled":
        return "Hand cancelled: " + (event.reason || event.code);
      default: {
        // Table events (sitting, leaving, timeouts, cancellations): say what the server said.
        if (event.message) return event.message;
        const words = event.type.replace(/[._]/g, " ");
        return (who ? who + ": " : "") + words + (event.amount ? " " + money(event.amount) : "");
      }
    }
  }

  function logEvent(event) {
    const log = $("log");
    const item = el("li", "ev ev-" + event.type, describe(event));
    log.prepend(item);
    while (log.children.length > LOG_LIMIT) log.lastChild.remove();
  }

  function toast(message, kind) {
    const node = el("div", "toast " + (kind || "info"), message);
    node.setAttribute("role", "alert");
    $("toasts").append(node);
    setTimeout(() => node.classList.add("leaving"), 5000);
    setTimeout(() => node.remove(), 5600);
  }

  /* Keyboard on a laptop: F folds, C checks or calls, R bets or raises the amount shown. */
  function bindKeys() {
    document.addEventListener("keydown", (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
      const target = event.target;
      if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" ||
        target.isContentEditable)) return;
      if ($("sit-dialog").open || !legal()) return;
      const key = event.key.toLowerCase();
      const visible = (id) => !$(id).hidden && !$(id).disabled;
      if (key === "f" && visible("act-fold")) $("act-fold").click();
      else if (key === "c" && visible("act-check")) $("act-check").click();
      else if (key === "c" && visible("act-call")) $("act-call").click();
      else if (key === "r" && visible("act-raise")) $("act-raise").click();
    });
  }

  // ------------------------------------------------------------------ reality check

  /* Every N minutes of the session (N set on the profile; the session begins at login) a
   * dialog shows the time played and the net result at the room, from the server
   * (GET reality_check_url); the player dismisses it. */
  let realityTimer = null;

  function realityDelayMs(check) {
    if (!check || !check.interval_minutes) return null;
    const every = check.interval_minutes * 60;
    const into = check.seconds_played % every;
    return (every - into) * 1000;
  }

  function playedLabel(seconds) {
    const minutes = Math.floor(seconds / 60);
    const hours = Math.floor(minutes / 60);
    const rest = minutes % 60;
    if (!hours) return minutes + (minutes === 1 ? " minute" : " minutes");
    return hours + (hours === 1 ? " hour " : " hours ") + rest + (rest === 1 ? " minute" : " minutes");
  }

  function realityShow(check) {
    $("reality-played").textContent = playedLabel(check.seconds_played);
    $("reality-net").textContent = (check.net > 0 ? "+" : "") + money(check.net);
    const dialog = $("reality-dialog");
    if (!dialog.open) dialog.showModal();
  }

  function realityFetch() {
    return fetch(config.reality_check_url, { credentials: "same-origin" })
      .then((response) => (response.ok ? response.json() : null))
      .catch(() => null);
  }

  function realitySchedule(check) {
    clearTimeout(realityTimer);
    const delay = realityDelayMs(check);
    if (delay === null || stopped) return;
    realityTimer = setTimeout(() => {
      realityFetch().then((fresh) => {
        if (!fresh || !fresh.interval_minutes || stopped) return realitySchedule(fresh);
        realityShow(fresh);
        realitySchedule(fresh);
      });
    }, delay);
  }

  function bindRealityCheck() {
    $("reality-leave").addEventListener("click", () => {
      $("reality-dialog").close();
      send({ type: "leave" });
    });
    if (config.reality_check_url) realityFetch().then(realitySchedule);
  }

  // ------------------------------------------------------------------ start

  bindActions();
  bindSeatControls();
  bindKeys();
  bindRealityCheck();
  setInterval(tick, 250);
  setInterval(watch, 1000);
  window.addEventListener("online", () => {
    if (!socket && !stopped) connect();
  });
  // For browser tests and for drawing a saved state by hand: read the state, render one.
  window.tablePage = {
    render: render, logEvent: logEvent, toast: toast, state: () => state,
    realityDelayMs: realityDelayMs, realityShow: realityShow,
    realityArmed: () => realityTimer !== null,
  };
  connect();
})();
