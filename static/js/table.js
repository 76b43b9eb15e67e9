/* The table page: one WebSocket to /ws/tables/<id>/, and the page drawn from the STATE the server
 * sends each recipient (docs/protocol.md). The server decides everything; this file only shows
 * the state and sends the player's choices. Plain JavaScript, no build step.
 */
(function () {
  "use strict";

  const config = JSON.parse(document.getElementById("table-config").textContent);
  const $ = (id) => document.getElementById(id);
  // Words from Django's JavaScript catalogue (jsi18n/, loaded by base.html): the page's language.
  const fill = (format, values) => interpolate(format, values, true);
  const LOG_LIMIT = 200;

  let state = null;
  let names = {}; // seat number -> display name, kept from the latest state
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
    // At a Sit & Go's table the stacks, bets and pots are tournament chips, not dollars.
    if (state && state.table && state.table.tournament) return chips(cents);
    return cash(cents);
  }

  const chips = window.roomChips;

  function cash(cents) {
    const sign = cents < 0 ? "-" : "";
    const abs = Math.abs(cents);
    // Whole dollars grouped and cents only when there are some, as the language writes them.
    const dollars = String(Math.floor(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, get_format("THOUSAND_SEPARATOR"));
    const rest = abs % 100;
    const amount = dollars + (rest ? get_format("DECIMAL_SEPARATOR") + String(rest).padStart(2, "0") : "");
    return sign + fill(gettext("$%(amount)s"), { amount: amount });
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

  // The viewer's own notes on the other players (static/js/player_notes.js; never in frames).
  const notes = window.playerNotes || null;
  if (notes) notes.onChange(() => { if (state) renderSeats(); });

  const cardLabel = window.roomCards.label;
  const cardEl = window.roomCards.element;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function nameOf(seat) {
    return names[seat] || fill(gettext("Seat %(n)s"), { n: seat });
  }

  // ------------------------------------------------------------------ the socket

  /* Its life (connecting with `?since=`, the updates in order, `resync`, the watchdog,
   * reconnecting, the close codes, the ping) is static/js/table_socket.js's, shared with the
   * live Showdown page; this page says what happens, in its words. */
  const socket = window.tableSocket.create({
    path: config.ws_path,
    node: config.ws_node,
    versioned: "update",
    shown: () => mirror.since,
    on: {
      frame: onFrame,
      hello: hello,
      connecting: (again) =>
        setConnection("connecting", again ? gettext("Reconnecting…") : gettext("Connecting…")),
      offline: (seconds) =>
        setConnection("offline", fill(gettext("Offline, reconnecting in %(seconds)s s"), { seconds: seconds })),
      tooMany: (seconds) =>
        setConnection("offline", fill(gettext("Reconnected too often; trying again in %(seconds)s s"), { seconds: seconds })),
      closed: onClosed,
    },
  });

  /* The socket closed for good: say why. */
  function onClosed(code) {
    const why = {
      [window.tableSocket.CLOSE_SUPERSEDED]: gettext("This table is open in another tab or window. This page no longer plays."),
      [window.tableSocket.CLOSE_UNAUTHENTICATED]: gettext("You are logged out. Log in again to play."),
      [window.tableSocket.CLOSE_NO_TABLE]: gettext("This table does not exist any more."),
      [window.tableSocket.CLOSE_EXCLUDED]: gettext("You are on a time-out or self-exclusion: no play until it ends."),
    };
    // A Sit & Go's table is closed for good once it is over (a page reloaded after its end).
    if (code === window.tableSocket.CLOSE_NO_TABLE && config.tournament_url) tournamentOver();
    else stop(why[code]);
  }

  /* The socket's first answer (a snapshot, or the resync of a page reconnecting), applied. */
  function hello(frame) {
    setConnection("online", gettext("Connected"));
    actionUnanswered(gettext("Your last action did not reach the table. Please choose again."));
    window.tableChat.load(frame.chat);
    takeOfferedSeat();
  }

  /* A Sit & Go's table closed for good (`table_closed`, after the last update): the place
   * stays in the bar; the notice links the tournament's page, where the results are. */
  function tournamentOver() {
    stop(gettext("This Sit & Go is over: its table is closed."), config.tournament_url, gettext("Table closed"));
    // Opened after the end, the page had no state to draw: the felt says it too, not
    // "Connecting to the table…".
    if (!state) $("table-message").textContent = gettext("This Sit & Go is over.");
    $("seat-controls").hidden = true; // nothing to sit out of any more
  }

  /* `results`: the tournament's page, linked from the notice; `connection`: the header's word
   * for it ("Not connected" unless told: a closed Sit & Go's table is not a lost socket). */
  function stop(message, results, connection) {
    stopped = true;
    if (window.realityCheck) window.realityCheck.stop(); // static/js/reality_check.js
    setConnection("stopped", connection || gettext("Not connected"));
    const notice = $("notice");
    notice.textContent = message;
    if (results) {
      notice.append(" ");
      const link = el("a", "notice-link", gettext("See the results"));
      link.id = "notice-results";
      link.href = results;
      notice.append(link);
    }
    notice.hidden = false;
    $("actions").hidden = true;
    socket.stop();
  }

  function send(frame) {
    if (!socket.send(frame)) {
      toast(gettext("Not connected to the table; your choice was not sent."));
      return false;
    }
    return true;
  }

  function setConnection(kind, text) {
    $("room").dataset.state = kind;
    const conn = $("conn");
    conn.textContent = text;
    conn.className = "conn " + kind;
  }

  /* A frame the socket hands on: the updates in order, once each; `asked`, a snapshot the
   * page asked for. */
  function onFrame(frame, asked) {
    switch (frame.type) {
      case "snapshot": {
        // One the page asked for is drawn only if the page was behind (or missed a frame).
        const shown = mirror.publicPart;
        if (!asked || !state || !shown || frame.state.version >= shown.version) {
          mirror.snapshot(frame.state);
          render(composed());
          logReplay(frame);
          playCues([]);
        }
        break;
      }
      case "chat":
        window.tableChat.add(frame.message);
        sounds.play([window.roomSounds.chatSound(frame.message, config.user_id,
          window.tableChat.hides(frame.message.player.id))]);
        break;
      case "chat_removed":
        window.tableChat.removed(frame.id);
        break;
      case "table_closed":
        tournamentOver();
        break;
      case "private":
        // Sent just before the public update of the same change: drawn with that one, or now
        // if it comes late.
        if (mirror.private(frame) && mirror.publicPart && frame.version <= mirror.publicPart.version) {
          render(composed());
          playCues([]);
        }
        break;
      case "update":
        updateApply(frame);
        break;
      case "error":
        pendingTurn = null;
        clearTimeout(actionAnswerTimer);
        if (!window.tableChat.refused(frame.message || frame.code)) toast(frame.message || frame.code, "error");
        if (state) render(state);
        break;
      case "superseded":
        stop(gettext("This table is open in another tab or window. This page no longer plays."));
        break;
      case "excluded":
        stop(frame.message);
        break;
      case "seat_offer":
        if (window.seatOffers) window.seatOffers.offer(frame);
        break;
      case "seat_offer_ended":
        if (window.seatOffers) window.seatOffers.ended(frame);
        break;
      case "session_limit":
        toast(frame.message, "error");
        break;
      default:
        break; // pong and anything newer than this page
    }
  }

  // ------------------------------------------------------------------ frames to state

  /* The STATE from the frames: the public part and this player's own part, in
   * static/js/table_state.js (tested under node, tests/js/). */
  const mirror = window.tableState.createMirror();

  /* The viewer's own hole cards of the latest hand, kept for the pause after it ends. */
  let myLastCards = null; // {handId, cards}

  function composed() {
    const next = mirror.composed();
    const hand = next.hand;
    const mine = hand && hand.you !== null ? hand.seats.find((s) => s.seat === hand.you) : null;
    if (mine && mine.cards) myLastCards = { handId: hand.id, cards: mine.cards };
    return next;
  }

  // ------------------------------------------------------------------ the all-in runout

  /* When nobody can act any more (all-in), the server deals the remaining streets and the
   * showdown in one change. The page turns the hands face up at once, then the streets one by
   * one, the table's runout pace apart (config.runout_ms), and only then shows who won; the
   * server waits as long before the next hand (poker/engine/views.py RUNOUT_STREET_SECONDS).
   * A board run twice is dealt the same way, the first run on the board's row, then the second
   * on the row under it (static/js/run_twice.js). */
  const RUNOUT_MS = config.runout_ms;
  const runs = window.roomRuns;
  // {plan, shown: steps turned over, board, second: the two rows so far, events, seats, gone, timer}
  let runout = null;

  function runoutStart(events, next) {
    const result = next.hand ? next.hand.result : next.last_result;
    const plan = runs.runoutPlan(events, result);
    if (!plan) return false;
    events.slice(0, plan.first).forEach(logEvent);
    // The seats as they were with the chips in the middle: the stacks before the pots are paid
    // and the statuses before the hand's end changed them (a busted player sat out), so nothing
    // on the felt gives the result away before the river is out.
    const won = winnersOf(result);
    const before = {};
    (state ? state.seats : []).forEach((s) => { before[s.seat] = s.status; });
    const seats = {};
    (next.seats || []).forEach((s) => {
      if (!s.player) return;
      seats[s.seat] = { stack: s.stack - (won[s.seat] || 0), status: before[s.seat] || s.status };
    });
    // A player who left during the hand is stood up as it ends, in this same change: their
    // all-in hand stays on the felt until the river is out.
    const gone = {};
    const dealt = (next.last_result && next.last_result.players) || {};
    (state ? state.seats : []).forEach((s) => {
      const now = (next.seats || []).find((n) => n.seat === s.seat);
      if (!s.player || (now && now.player) || dealt[s.seat] !== s.player.display_name) return;
      gone[s.seat] = Object.assign({}, s);
      seats[s.seat] = { stack: 0, status: s.status };
    });
    runout = Object.assign({ plan: plan, shown: 0, events: events.slice(plan.first), seats: seats, gone: gone, timer: null },
      toRows(runs.boardsAfter(plan, 0)));
    runout.timer = setTimeout(runoutStep, RUNOUT_MS);
    return true;
  }

  const toRows = (boards) => ({ board: boards.first, second: boards.second });

  function runoutStep() {
    if (!runout) return;
    runout.shown += 1;
    Object.assign(runout, toRows(runs.boardsAfter(runout.plan, runout.shown)));
    const more = runout.shown < runout.plan.steps.length;
    runout.timer = setTimeout(more ? runoutStep : runoutFinish, more ? RUNOUT_MS : RUNOUT_MS / 2);
    if (state) render(state);
  }

  /* The runout is over (or cut short by the next change): log its events, show the result. */
  function runoutFinish() {
    if (!runout) return;
    clearTimeout(runout.timer);
    const events = runout.events;
    runout = null;
    events.forEach(logEvent);
    if (state) render(state);
    // The pot is won now that the river is out (not when the all-in was called).
    sounds.play(window.roomSounds.eventSounds(events, state && state.you ? state.you.seat : null));
  }

  // ------------------------------------------------------------------ an update, in order

  function updateApply(frame) {
    if (!mirror.update(frame)) {
      socket.askSnapshot(); // a change to a hand this page never saw: the whole state again
      return;
    }
    runoutFinish(); // a runout still on screen ends at once: this change comes after it
    const events = frame.events || [];
    events.forEach((event) => { if (event.hand_id) loggedHand = event.hand_id; });
    const next = composed();
    syncClock(next);
    if (!runoutStart(events, next)) events.forEach(logEvent);
    render(next);
    // The events logged now make their sounds; a runout's make theirs as it ends.
    playCues(runout ? events.slice(0, events.length - runout.events.length) : events);
  }

  // ------------------------------------------------------------------ sounds

  /* Which sound a frame makes is static/js/sounds.js's (tested under node, tests/js/); its
   * player plays nothing before the player's first click or key on the page, or when muted. */
  const sounds = window.roomSounds.page;
  const cues = window.roomSounds.tableCues();

  /* The sounds of the state just drawn with the events just logged: a turn a pre-action has
   * already answered calls nobody. */
  function playCues(events) {
    if (!state) return;
    const answered = pendingTurn !== null && Boolean(state.hand) && pendingTurn === state.hand.turn;
    sounds.play(cues.update(state, events, answered));
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
      ? fill(gettext("Wallet %(amount)s"), { amount: cash(you.wallet) }) : "";
    renderSeats();
    renderCenter();
    renderReading();
    renderActions();
    renderSeatControls();
    renderShowCards();
    renderResult();
    renderNextSeed();
    renderTournament();
    tick();
  }

  /* A Sit & Go's level, blinds and time to the next level, and the player's place: by chips
     among those still in while they play ("3rd of 6"), their finish once out (STATE's
     table.tournament); the countdown runs in tick(). */
  function renderTournament() {
    const bar = $("tournament-bar");
    const sng = state.table.tournament;
    if (!bar || !sng) return;
    bar.hidden = false;
    // Fixed limit names the level's bets, as the hand page does; pot limit its blinds.
    const bets = sng.small_bet !== null && sng.small_bet !== undefined;
    const level = { level: window.roomRoman(sng.level), ante: chips(sng.ante),
      small: chips(bets ? sng.small_bet : sng.small_blind),
      big: chips(bets ? sng.big_bet : sng.big_blind) };
    $("tournament-level").textContent = bets
      ? sng.ante > 0
        ? fill(gettext("Level %(level)s: bets %(small)s/%(big)s, ante %(ante)s"), level)
        : fill(gettext("Level %(level)s: bets %(small)s/%(big)s"), level)
      : sng.ante > 0
        ? fill(gettext("Level %(level)s: blinds %(small)s/%(big)s, ante %(ante)s"), level)
        : fill(gettext("Level %(level)s: blinds %(small)s/%(big)s"), level);
    const mine = sng.places.find((p) => p.player.id === config.user_id);
    const playing = !mine && window.tableState.placeByChips(state, config.user_id);
    $("tournament-place").textContent = playing
      ? fill(gettext("%(place)s of %(players)s"),
        { place: window.roomOrdinal(playing.place), players: playing.of })
      : !mine ? ""
      : mine.prize > 0
        ? fill(gettext("You finished %(place)s of %(entrants)s: %(prize)s"),
          { place: mine.place, entrants: sng.entrants, prize: cash(mine.prize) })
        : fill(gettext("You finished %(place)s of %(entrants)s."),
          { place: mine.place, entrants: sng.entrants });
    tournamentClock();
  }

  function tournamentClock() {
    const next = $("tournament-next");
    const sng = state && state.table.tournament;
    if (!next || !sng) return;
    if (!sng.next_level_at) {
      next.textContent = "";
      return;
    }
    const time = window.roomMinutes((Date.parse(sng.next_level_at) - serverNow()) / 1000);
    const bets = sng.next_small_bet !== null && sng.next_small_bet !== undefined;
    next.textContent = bets
      ? fill(gettext("Next level in %(time)s: bets %(small)s/%(big)s"),
        { time: time, small: chips(sng.next_small_bet), big: chips(sng.next_big_bet) })
      : fill(gettext("Next level in %(time)s: %(small)s/%(big)s"),
        { time: time, small: chips(sng.next_small_blind), big: chips(sng.next_big_blind) });
  }

  /* A Sit & Go's break (STATE's table.break_until, kept by the mirror from the break's
     events): a banner counting down to its end, gone when play resumes; between hands it
     takes the place of "The next hand starts shortly". Redrawn by tick(). */
  function breakClock() {
    const banner = $("break-banner");
    const until = state && state.table.break_until;
    const left = until ? (Date.parse(until) - serverNow()) / 1000 : 0;
    if (!banner) return;
    banner.hidden = !(left > 0);
    $("table-message").hidden = left > 0 && !state.hand;
    if (left > 0) {
      banner.textContent = fill(gettext("Break: play resumes in %(time)s"),
        { time: window.roomMinutes(left) });
    }
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
        if (share.amount > 0) won[share.seat] = (won[share.seat] || 0) + share.amount;
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
    // A player's name is a button (the note editor): keep the keyboard's place on it.
    const focused = document.activeElement && container.contains(document.activeElement)
      ? document.activeElement.dataset.notePlayer : null;
    container.replaceChildren();
    const table = state.table;
    const hand = state.hand;
    const handSeats = handSeatMap();
    // Between hands the seats keep showing the last showdown: cards shown and who won.
    const previous = lastResult();
    const settled = previous && !previous.cancelled ? previous : null;
    const result = hand ? hand.result : settled;
    const shown = shownMap(result);
    const won = runout ? {} : winnersOf(result); // who won shows once the board is all out
    const mySeat = state.you ? state.you.seat : null;
    const anchor = mySeat || 1;
    const count = table.max_seats;
    $("felt").classList.toggle("many", count > 6);
    state.seats.forEach((current) => {
      const s = (runout && runout.gone[current.seat]) || current;
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
        if ((mySeat === null || mySeat === undefined) && !seatsHeld()) {
          const button = el("button", "sit-here", gettext("Sit here"));
          button.type = "button";
          button.dataset.seat = s.seat;
          button.setAttribute("aria-label", "Sit at seat " + s.seat);
          button.addEventListener("click", () => openSitDialog(s.seat));
          node.append(button);
        } else {
          node.append(el("span", "seat-empty", gettext("Empty")));
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
      } else if (!hand && s.seat === mySeat && myLastCards && previous &&
          myLastCards.handId === previous.hand_id) {
        // Between hands a player still sees their own cards of the hand just played (dimmed:
        // nobody else does, unless they choose to show them).
        cards.classList.add("own-last");
        myLastCards.cards.forEach((c) => cards.append(cardEl(c)));
      }
      node.append(cards);

      const plate = el("div", "plate");
      plate.append(seatName(s.player, s.seat === mySeat));
      const held = runout && !inHand ? runout.seats[s.seat] : null;
      const status = held ? held.status : s.status;
      const stack = inHand ? inHand.stack : held ? held.stack : s.stack;
      const stackEl = el("span", "seat-stack", money(stack));
      stackEl.dataset.cents = stack;
      plate.append(stackEl);
      const badges = [];
      if ((inHand && inHand.all_in) || (held && held.stack === 0 && shown[s.seat])) {
        badges.push(["all-in", gettext("All-in")]);
      }
      if (inHand && inHand.folded) badges.push(["folded", gettext("Folded")]);
      if (status === "sitting_out") {
        const since = s.sat_out_at ? new Date(s.sat_out_at) : null;
        badges.push(["out", since && !Number.isNaN(since.getTime())
          ? fill(gettext("Out since %(time)s"), { time: window.roomClock(since) })
          : gettext("Sitting out")]);
      }
      if (status === "waiting_big_blind") badges.push(["waiting", gettext("Waits for BB")]);
      if (!s.connected) badges.push(["offline", gettext("Disconnected")]);
      if (won[s.seat] && (hand || samePlayer(s))) badges.push(["won", fill(gettext("Won %(amount)s"), { amount: money(won[s.seat]) })]);
      badges.forEach(([kind, text]) => {
        plate.append(el("span", "badge " + kind, text)); // whole: it wraps on a narrow plate
      });
      if (shown[s.seat] && (hand || samePlayer(s)) && !runout) {
        // A hand's name is read on the whole board: it waits for the river like the result.
        const label = shownHandName(shown[s.seat]);
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
        button.title = gettext("Dealer button");
        if (pos.y > 80 || pos.y < 20) {
          // The top and bottom seats' cards and plates fill the way to the middle: the button
          // sits on the plate's left corner, above it (table.css), never under cards or a
          // plate, nor on the turn's timer, which holds the right corner.
          button.classList.add("on-plate");
          button.style.left = "calc(" + pos.x + "% - var(--seat-w) / 2)";
          button.style.top = "calc(" + pos.y + "% + 0.6rem)";
        } else {
          button.style.left = 50 + (pos.x - 50) * 0.72 + (pos.x < 50 ? 6 : -6) + "%";
          button.style.top = 50 + (pos.y - 50) * 0.72 + "%";
        }
        container.append(button);
      }
      container.append(node);
    });
    if (notes) {
      notes.want(state.seats.filter((s) => s.player && s.seat !== mySeat).map((s) => s.player.id));
    }
    if (focused) {
      const again = container.querySelector(`[data-note-player="${focused}"]`);
      if (again) again.focus();
    }
  }

  /* A seat's name: another player's is a button that opens the viewer's note on them (their
   * colour tag and a pen mark beside it, static/js/player_notes.js); the viewer's own is text. */
  function seatName(player, mine) {
    if (!notes || mine || player.id === config.user_id) {
      return el("span", "seat-name", player.display_name);
    }
    const wrap = el("span", "seat-name-row");
    const button = el("button", "seat-name note-open", player.display_name);
    button.type = "button";
    button.dataset.notePlayer = player.id;
    button.setAttribute("aria-label", notes.describe(player));
    button.addEventListener("click", () => notes.edit(player));
    const badge = notes.badge(notes.note(player.id), true);
    if (badge) wrap.append(badge);
    wrap.append(button);
    return wrap;
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
    let cards = hand ? hand.board : (previous && !previous.cancelled && previous.board) || [];
    // A board run twice: the second run on the row under the first, each row named; during the
    // runout the second row comes with its first street, once the first run is out.
    const ended = (hand && hand.result) || (!hand && previous);
    const boards = runs.twice(ended) ? ended.boards : null;
    let secondCards = boards ? boards[1] : null;
    if (runout) {
      cards = runout.board;
      secondCards = runout.second;
    }
    const named = runout ? runout.plan.twice : Boolean(boards);
    $("felt").classList.toggle("twice", named);
    if (named) board.append(el("span", "run-label", gettext("Run 1")));
    cards.forEach((c) => board.append(cardEl(c)));
    const second = $("board-two");
    second.replaceChildren();
    second.hidden = !named || !secondCards;
    if (named && secondCards) {
      second.append(el("span", "run-label", gettext("Run 2")));
      secondCards.forEach((c) => second.append(cardEl(c)));
    }
    renderRunWinners(runout ? null : boards && ended);
    const pots = $("pots");
    pots.replaceChildren();
    const message = $("table-message");
    if (hand && !hand.result) {
      // Chips already gathered in the middle, and this street's bets still in front of seats.
      const split = potsOf(hand.seats);
      const betsOut = hand.seats.reduce((sum, s) => sum + s.bet, 0);
      if (split.length > 1) {
        split.forEach((amount, k) =>
          pots.append(el("span", "pot", potLabel(k, amount, gettext("Main pot %(amount)s")))),
        );
      }
      const total = el("span", "pot total", fill(gettext("Pot %(amount)s"), { amount: money(hand.pot) }));
      total.id = "pot-total";
      pots.append(total);
      if (betsOut && split.length <= 1) total.title = fill(gettext("%(amount)s in bets this round"), { amount: money(betsOut) });
      message.textContent = streetLabel(hand.street);
    } else if (runout && previous) {
      const total = (previous.pots || []).reduce((sum, pot) => sum + pot.amount, 0);
      pots.append(el("span", "pot total", fill(gettext("Pot %(amount)s"), { amount: money(total) })));
      message.textContent = gettext("All in: the rest of the board is dealt");
    } else if (hand && hand.result) {
      hand.result.pots.forEach((pot, k) =>
        pots.append(el("span", "pot", potLabel(k, pot.amount, gettext("Pot %(amount)s")))),
      );
      message.textContent = gettext("Hand over");
    } else {
      // Between hands the middle is empty: the last hand's pots are in its result, not here.
      const ready = state.seats.filter((s) => s.player && s.status !== "sitting_out").length;
      message.textContent = ready < 2 ? gettext("Waiting for players") : gettext("The next hand starts shortly");
    }
  }

  /* Under each row of a board run twice, once the runout is over: who won that run's half of
   * each pot (its side, in Hi/Lo), in the words of the result's lines without the hands (the
   * last hand's panel has them). */
  function renderRunWinners(result) {
    [1, 2].forEach((run) => {
      const line = $("run-winners-" + run);
      line.replaceChildren();
      const one = result ? runs.runResult(result, run - 1) : null;
      const lines = one ? resultLines(one, shownMap(one), { hands: false }) : [];
      line.hidden = !lines.length;
      line.dataset.seats = one ? runs.runWinners(result)[run - 1].join(" ") : "";
      line.textContent = lines.join(" · ");
    });
  }

  /* "Pot $3" (or the main pot's own words, `first`), "Side pot 1 $2" for the side pots. */
  function potLabel(k, amount, first) {
    return k
      ? fill(gettext("Side pot %(number)s %(amount)s"), { number: k, amount: money(amount) })
      : fill(first, { amount: money(amount) });
  }

  /* The hand reader: the player's own best hand on the board so far (`hand.reading`, their own
   * part only: docs/protocol.md "STATE"), high and in Hi/Lo the low, each two hole cards and
   * three board cards, named as a showdown names them; the high's five cards are ringed on the
   * table. Hidden once the hand is over (its result names the hands) and during the runout. */
  let readingShown = "";

  function renderReading() {
    const box = $("hand-reading");
    const hand = state.hand;
    const reading = hand && !hand.result && !runout ? hand.reading : null;
    document.querySelectorAll(".card.in-reading").forEach((c) => c.classList.remove("in-reading"));
    if (!reading) {
      box.hidden = true;
      box.replaceChildren();
      box.removeAttribute("title");
      readingShown = "";
      return;
    }
    const used = new Set(reading.high.cards);
    [$("board"), $("seat-" + hand.you)].forEach((where) => {
      if (!where) return;
      where.querySelectorAll(".card[data-card]").forEach((c) => {
        if (used.has(c.dataset.card)) c.classList.add("in-reading");
      });
    });
    const key = JSON.stringify([reading, hand.game]);
    if (key === readingShown) return; // unchanged: the status region is not read out again
    readingShown = key;
    box.replaceChildren();
    box.append(el("span", "reading-label", gettext("Your hand:")));
    const part = (value, kind) => {
      const wrap = el("span", "reading-part " + kind);
      const name = handName(value);
      wrap.append(el("span", "reading-name", name.charAt(0).toUpperCase() + name.slice(1)));
      const cards = el("span", "reading-cards");
      value.cards.forEach((c) => cards.append(cardEl(c)));
      wrap.append(cards);
      return wrap;
    };
    box.append(part(reading.high, "high"));
    if (reading.low) box.append(part(reading.low, "low"));
    else if (hand.game === "omaha8") box.append(el("span", "reading-part no-low", gettext("No low")));
    // In full where a line cuts a long name short (static/css/table.css).
    const words = [...box.querySelectorAll(".reading-name, .no-low")].map((n) => n.textContent);
    box.title = gettext("Your hand:") + " " + words.join(" · ");
    box.hidden = false;
  }

  /* A hand's name in the page's language from its category and cards (static/js/hand_names.js). */
  function handName(value) {
    return value ? window.handNames.handName(value) : "";
  }

  function streetLabel(street) {
    return { preflop: gettext("Preflop"), flop: gettext("Flop"), turn: gettext("Turn"), river: gettext("River") }[street] || street;
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

  /* Pre-actions: chosen while another player acts, played the moment the turn comes.
   * "Check/Fold" and "Call any" are for the player's next decision of this street; "Fold to any
   * bet" holds for the rest of the hand (it checks when the check is free). A new street or a
   * new hand clears the first two; the third goes with the hand. */
  let preAction = null; // {kind, hand, street}

  function myHandSeat() {
    const hand = state && state.hand;
    if (!hand || hand.result || !state.you || hand.you === null || hand.you === undefined) return null;
    return hand.seats.find((s) => s.seat === hand.you) || null;
  }

  function renderPreActions(options) {
    const box = $("pre-actions");
    const hand = state.hand;
    const mine = myHandSeat();
    if (preAction && (!hand || preAction.hand !== hand.id || hand.result ||
        (preAction.kind !== "fold_any" && preAction.street !== hand.street))) {
      preAction = null;
    }
    box.hidden = stopped || Boolean(options) || !mine || mine.folded || mine.all_in || !hand.to_act;
    box.querySelectorAll(".pre-action").forEach((button) => {
      const on = Boolean(preAction && preAction.kind === button.dataset.pre);
      button.setAttribute("aria-pressed", on ? "true" : "false");
      button.classList.toggle("on", on);
    });
  }

  /* The turn came with a pre-action chosen: play it (once per turn). True if it acted. */
  function playPreAction(options) {
    const hand = state.hand;
    if (!preAction || !options || preAction.hand !== hand.id || pendingTurn === hand.turn) return false;
    const kind = preAction.kind;
    let action;
    if (kind === "check_fold") action = options.check ? "check" : "fold";
    else if (kind === "call_any") action = options.call ? "call" : "check";
    else action = options.check ? "check" : "fold";
    if (kind !== "fold_any") preAction = null;
    act(action);
    return true;
  }

  function bindPreActions() {
    ["runs-yes", "runs-no"].forEach((id) =>
      $(id).addEventListener("click", () => {
        $("runs-ask").hidden = true;
        send({ type: "runs_answer", agree: id === "runs-yes" });
      }),
    );
    $("pre-actions").addEventListener("click", (event) => {
      const button = event.target.closest(".pre-action");
      if (!button || !state || !state.hand) return;
      const kind = button.dataset.pre;
      preAction = preAction && preAction.kind === kind
        ? null : { kind: kind, hand: state.hand.id, street: state.hand.street };
      renderPreActions(legal());
    });
  }

  function renderRunsAsk() {
    // Run it twice: the players still in are asked (docs/protocol.md "Run it twice").
    const hand = state.hand;
    const ask = $("runs-ask");
    const asked = hand && !hand.result ? hand.runs_asked || [] : [];
    const mySeat = state.you ? state.you.seat : null;
    const answered = (hand && hand.runs_answered) || [];
    const mine = !stopped && asked.includes(mySeat) && !answered.includes(mySeat);
    const wasHidden = ask.hidden;
    ask.hidden = !mine;
    if (mine && wasHidden) $("runs-yes").focus();
    if (mine) $("turn").textContent = "";
    else if (asked.length) {
      $("turn").textContent = fill(gettext("Run it twice? %(answered)s of %(asked)s answered"), {
        answered: answered.length, asked: asked.length,
      });
    }
    return asked.length > 0;
  }

  function renderActions() {
    const deciding = renderRunsAsk();
    const actions = $("actions");
    const options = stopped ? null : legal();
    renderPreActions(options);
    if (options && playPreAction(options)) return;
    const turnEl = $("turn");
    const hand = state.hand;
    if (hand && !hand.result && hand.to_act) {
      turnEl.textContent = options
        ? gettext("Your turn")
        : fill(gettext("%(name)s to act"), { name: nameOf(hand.to_act) });
      turnEl.classList.toggle("mine", Boolean(options));
    } else if (!deciding) {
      turnEl.textContent = "";
      turnEl.classList.remove("mine");
    }
    document.title = (options ? "▶ " + gettext("Your turn") + " · " : "") + baseTitle;
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
    const armed = foldArmedTurn === hand.turn;
    setButton("act-fold", options.fold, armed ? gettext("Fold? Checking is free") : gettext("Fold"));
    $("act-fold").classList.toggle("confirm", armed);
    setButton("act-check", options.check, gettext("Check"));
    const callAllIn = options.call && mine && options.call >= mine.stack;
    setButton("act-call", Boolean(options.call), fill(callAllIn ? gettext("Call %(amount)s (all-in)") : gettext("Call %(amount)s"), { amount: money(options.call) }));
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
      $("preset-max").hidden = potLimit;
      renderPresets(options, span, waiting);
    } else {
      sizing.hidden = true;
    }
    setButton("act-raise", Boolean(span));
    // All-in as its own button only when it differs from the top of the slider or the call.
    const allInDistinct = options.all_in && (!span || options.all_in !== span.max) && !callAllIn;
    setButton("act-all-in", Boolean(allInDistinct), fill(gettext("All-in %(amount)s"), { amount: money(options.all_in) }));
    $("raise-slider").disabled = waiting;
    $("raise-amount").disabled = waiting;
  }

  /* Bet-size presets (docs/rules.md "The table page's controls"): before the flop, raises to
   * 2.5, 3 and 4 big blinds; after it, in pot limit, a third, half and three quarters of a
   * pot-sized bet. A preset the legal range the server sent does not allow is disabled (and
   * says why), never stretched to fit: the button always sends what it says. */
  const BIG_BLIND_PRESETS = [2.5, 3, 4];
  const POT_PRESETS = [[1, 3, "⅓"], [1, 2, "½"], [3, 4, "¾"]];

  function presetSizes(options) {
    const hand = state.hand;
    if (hand.street === "preflop") {
      const number = new Intl.NumberFormat(document.documentElement.lang || undefined);
      return BIG_BLIND_PRESETS.map((n) => ({
        label: fill(gettext("%(n)s BB"), { n: number.format(n) }),
        amount: Math.round(n * state.table.big_blind),
      }));
    }
    if (state.table.structure !== "pot-limit") return [];
    const mine = hand.seats.find((s) => s.seat === options.seat);
    const call = hand.current_bet - (mine ? mine.bet : 0);
    // A pot-sized bet or raise is the call plus the pot after calling (RULES.md 3).
    return POT_PRESETS.map(([top, bottom, symbol]) => ({
      label: fill(gettext("%(fraction)s pot"), { fraction: symbol }),
      amount: hand.current_bet + Math.round(((hand.pot + call) * top) / bottom),
    }));
  }

  function renderPresets(options, span, waiting) {
    const box = $("preset-sizes");
    box.replaceChildren();
    presetSizes(options).forEach((preset) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "preset size";
      button.textContent = preset.label;
      button.dataset.amount = preset.amount;
      const legalSize = preset.amount >= span.min && preset.amount <= span.max;
      button.disabled = waiting || !legalSize;
      button.title = legalSize
        ? money(preset.amount)
        : fill(gettext("%(amount)s is not allowed now (from %(low)s to %(high)s)."), {
            amount: money(preset.amount), low: money(span.min), high: money(span.max),
          });
      box.appendChild(button);
    });
  }

  function raiseHint(text, refused) {
    const hint = $("raise-hint");
    hint.hidden = !text;
    hint.textContent = text || "";
    hint.classList.toggle("refused", Boolean(refused));
    $("raise-amount").setAttribute("aria-invalid", refused ? "true" : "false");
  }

  /* The amount in the box as the player types: a good one moves the button ("Raise to $12"),
   * anything else disables the button and says why, so nothing is sent that the button did
   * not show. Returns {ok, clamped, message}: `clamped` is the nearest legal amount for a
   * number out of range, null for text, a negative amount or zero. */
  function typedAmount() {
    const options = legal();
    const span = options && (options.bet || options.raise);
    if (!span) return { ok: false, clamped: null, message: "" };
    const text = $("raise-amount").value;
    const cents = text.trim() === "" ? null : toCents(text);
    let result;
    if (cents === null || cents <= 0) {
      result = {
        ok: false, clamped: null,
        message: fill(gettext("Type an amount in dollars, from %(low)s to %(high)s."), { low: money(span.min), high: money(span.max) }),
      };
    } else if (cents < span.min) {
      result = { ok: false, clamped: span.min, message: fill(gettext("The least you may put in is %(amount)s."), { amount: money(span.min) }) };
    } else if (cents > span.max) {
      result = { ok: false, clamped: span.max, message: fill(gettext("The most you may put in is %(amount)s."), { amount: money(span.max) }) };
    } else {
      result = { ok: true, clamped: cents, message: "" };
    }
    if (result.ok) {
      setRaise(cents, null, state.hand.turn);
      raiseHint("", false);
    } else {
      raiseHint(result.message, true);
    }
    $("act-raise").disabled = !result.ok || pendingTurn === state.hand.turn;
    return result;
  }

  function setRaise(amount, kind, turn) {
    const options = legal();
    const span = options && (options.bet || options.raise);
    if (!span) return;
    const mine = state.hand.seats.find((s) => s.seat === options.seat);
    const clamped = Math.max(span.min, Math.min(span.max, Math.round(amount)));
    const button = $("act-raise");
    raiseHint("", false);
    button.disabled = pendingTurn === turn;
    button.dataset.amount = clamped;
    button.dataset.turn = turn;
    button.dataset.kind = kind || (options.bet ? "bet" : "raise");
    const allIn = mine && clamped === mine.bet + mine.stack;
    const words = button.dataset.kind === "bet"
      ? (allIn ? gettext("Bet %(amount)s (all-in)") : gettext("Bet %(amount)s"))
      : (allIn ? gettext("Raise to %(amount)s (all-in)") : gettext("Raise to %(amount)s"));
    button.textContent = fill(words, { amount: money(clamped) });
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
      clearTimeout(actionAnswerTimer);
      actionAnswerTimer = setTimeout(
        () => actionUnanswered(gettext("The table did not answer your action. Please choose again.")),
        ACTION_ANSWER_MS,
      );
    }
  }

  /* An action is answered by the state moving past its turn or by an error frame. One whose
   * socket dropped before it landed, or that the table never answered, would otherwise leave
   * the buttons waiting until the clock ran out: say so and let the player choose again (a
   * late answer after all is harmless: the turn and seq refuse a second action). */
  const ACTION_ANSWER_MS = 8000;
  let actionAnswerTimer = null;

  function actionUnanswered(message) {
    clearTimeout(actionAnswerTimer);
    if (pendingTurn === null) return;
    const hand = state && state.hand;
    pendingTurn = null;
    if (!hand || !legal()) return;
    toast(message, "error");
    render(state);
  }

  /* Folding when a check is free takes a second click (within a few seconds) on the same
   * button, which says so: a player rarely means it, but may (docs/rules.md "Acting"). */
  let foldArmedTurn = null;
  let foldArmedTimer = null;

  function foldDisarm() {
    foldArmedTurn = null;
    clearTimeout(foldArmedTimer);
    $("act-fold").classList.remove("confirm");
  }

  function fold() {
    const options = legal();
    if (!options) return;
    if (!options.check || foldArmedTurn === state.hand.turn) {
      foldDisarm();
      act("fold");
      return;
    }
    foldArmedTurn = state.hand.turn;
    const button = $("act-fold");
    button.classList.add("confirm");
    button.textContent = gettext("Fold? Checking is free");
    clearTimeout(foldArmedTimer);
    foldArmedTimer = setTimeout(() => {
      foldDisarm();
      if (state) renderActions();
    }, 4000);
  }

  function bindActions() {
    $("act-fold").addEventListener("click", fold);
    ["act-check", "act-call", "act-all-in"].forEach((id) => {
      $(id).addEventListener("click", () => act($(id).dataset.action));
    });
    $("act-raise").addEventListener("click", () => {
      const button = $("act-raise");
      act(button.dataset.kind, Number(button.dataset.amount));
    });
    $("raise-slider").addEventListener("input", (event) => {
      setRaise(Number(event.target.value), null, state.hand.turn);
    });
    $("raise-amount").addEventListener("input", () => typedAmount());
    $("raise-amount").addEventListener("change", () => {
      // Leaving the box: it shows what the button would send (a typed amount out of range
      // was never taken; the button kept the last good one).
      typedAmount();
      $("raise-amount").value = dollarsValue(Number($("act-raise").dataset.amount));
    });
    $("raise-amount").addEventListener("keydown", (event) => {
      if (event.key !== "Enter") return;
      event.preventDefault();
      const typed = typedAmount();
      if (typed.ok) {
        $("act-raise").click(); // sends what the button shows: the amount typed
      } else if (typed.clamped !== null) {
        // Out of range: shown at the nearest amount allowed, sent only on a second Enter.
        setRaise(typed.clamped, null, state.hand.turn);
        $("raise-amount").value = dollarsValue(typed.clamped);
        raiseHint(typed.message + " " + gettext("Press Enter again to send it."), false);
      }
    });
    const span = () => {
      const options = legal();
      return options && (options.bet || options.raise);
    };
    $("preset-min").addEventListener("click", () => span() && setRaise(span().min, null, state.hand.turn));
    $("preset-max").addEventListener("click", () => span() && setRaise(span().max, null, state.hand.turn));
    $("preset-pot").addEventListener("click", () => span() && setRaise(span().max, null, state.hand.turn));
    $("preset-sizes").addEventListener("click", (event) => {
      const button = event.target.closest("button.size");
      const s = span();
      if (!button || button.disabled || !s) return;
      const amount = Number(button.dataset.amount);
      if (amount >= s.min && amount <= s.max) setRaise(amount, null, state.hand.turn);
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
    tournamentClock();
    breakClock();
    const hand = state.hand;
    document.querySelectorAll(".seat .timer").forEach((t) => (t.hidden = true));
    const turnTimer = $("turn");
    delete turnTimer.dataset.seconds;
    if (!hand || hand.result || !hand.deadline || !hand.to_act) return;
    // The normal time runs to the time bank's start; then the bank counts down to the deadline.
    const bankFrom = hand.time_bank_from ? Date.parse(hand.time_bank_from) : null;
    const banking = bankFrom !== null && serverNow() >= bankFrom;
    const end = bankFrom !== null && !banking ? bankFrom : Date.parse(hand.deadline);
    const left = (end - serverNow()) / 1000;
    let countdownFrom = hand.countdown_at
      ? (end - Date.parse(hand.countdown_at)) / 1000
      : state.table.countdown_seconds;
    if (banking) countdownFrom = (end - bankFrom) / 1000;
    const seat = document.getElementById("seat-" + hand.to_act);
    if (!seat) return;
    const timer = seat.querySelector(".timer");
    const seconds = Math.max(0, Math.ceil(left));
    sounds.play(cues.tick(state, left, banking));
    if (left <= countdownFrom) {
      timer.hidden = false;
      timer.textContent = banking
        ? fill(gettext("Time bank %(seconds)ss"), { seconds: seconds })
        : fill(gettext("%(seconds)ss"), { seconds: seconds });
      timer.classList.toggle("bank", banking);
      timer.classList.toggle("urgent", left <= 5);
      timer.style.setProperty("--left", Math.max(0, left / countdownFrom));
      turnTimer.dataset.seconds = seconds;
    }
  }

  // ------------------------------------------------------------------ seat controls

  /* True when every free seat is held for players on the waiting list and none for this one:
   * the page offers the list instead of "Sit here" (the server would refuse the seat). */
  function seatsHeld() {
    const you = state.you || {};
    if (you.waiting && you.waiting.offer_expires_at) return false;
    const free = state.seats.filter((s) => !s.player).length;
    const waiting = state.waiting || { count: 0, offered: 0 };
    return free <= waiting.offered;
  }

  function renderWaiting(seated) {
    const you = state.you || {};
    const waiting = state.waiting || { count: 0, offered: 0 };
    const mine = you.waiting || null;
    const free = state.seats.some((s) => !s.player);
    const box = $("waiting-box");
    box.hidden = seated || stopped || !state.you || (free && !seatsHeld() && !mine);
    if (box.hidden) return;
    $("waiting-join").hidden = Boolean(mine);
    $("waiting-leave").hidden = !mine;
    let text;
    if (mine && mine.offer_expires_at) {
      text = gettext("A seat is free for you: pick an empty seat before the offer runs out.");
    } else if (mine) {
      text = fill(gettext("You are number %(position)s on the waiting list."), { position: mine.position });
    } else if (waiting.count) {
      text = fill(ngettext("The table is full; %(count)s player is waiting.",
        "The table is full; %(count)s players are waiting.", waiting.count), { count: waiting.count });
    } else {
      text = gettext("The table is full.");
    }
    $("waiting-place").textContent = text;
  }

  function renderSeatControls() {
    const you = state.you || {};
    const seated = you.seat !== null && you.seat !== undefined;
    $("seat-controls").hidden = !seated || stopped;
    const offered = Boolean(you.waiting && you.waiting.offer_expires_at);
    $("spectator-hint").hidden =
      seated || stopped || offered || !state.seats.some((s) => !s.player) || seatsHeld();
    renderWaiting(seated);
    const mine = seated ? state.seats.find((s) => s.seat === you.seat) : null;
    window.tableChat.viewer(mine && mine.player ? mine.player.id : null, seated && !stopped);
    if (!seated) return;
    // During an all-in runout the player is still in the hand: no re-buy, top-up or "Sit in"
    // offer before the river says who won.
    const held = runout ? runout.seats[you.seat] : null;
    const out = held ? held.status === "sitting_out"
      : Boolean(you.sitting_out) || (mine && mine.status === "sitting_out");
    const handSeat = state.hand && !state.hand.result
      ? state.hand.seats.find((s) => s.seat === you.seat) : null;
    const chips = mine ? mine.stack : 0;
    // A busted player has one way back: "Re-buy and play" (a plain "Sit in" with no chips
    // would only be refused).
    const broke = !handSeat && !held && chips === 0;
    $("sit-out").hidden = out;
    $("sit-in").hidden = !out || broke;
    $("post-bb-wrap").hidden = !out || broke;
    $("post-bb-now").hidden = out || you.status !== "waiting_big_blind";
    $("wait-bb").hidden = out || !you.posts_big_blind || Boolean(handSeat);
    const topUp = $("top-up-form");
    const range = you.buy_in_range || [state.table.min_buy_in, state.table.max_buy_in];
    const stack = mine ? mine.stack : 0;
    const room = range ? range[1] - stack : 0;
    const busted = broke;
    // A Sit & Go's seat is the tournament's: no re-buy, top-up, leaving or seat options there
    // (the table refuses them, `tournament_table`).
    const sng = Boolean(state.table.tournament);
    renderRebuy(busted && !sng, you, out);
    renderSeatOptions(you, out, Boolean(handSeat) || Boolean(held));
    $("seat-options").hidden = sng;
    $("leave").hidden = sng;
    topUp.hidden = sng || busted || Boolean(handSeat) || Boolean(held) || !range || room <= 0;
    if (!topUp.hidden) {
      const input = $("top-up-amount");
      input.max = dollarsValue(Math.min(room, you.wallet));
      input.placeholder = fill(gettext("up to %(amount)s"), { amount: dollarsValue(Math.min(room, you.wallet)) });
    }
  }

  /* The seat options (docs/rules.md "Seat options"), as the server says they are: "Sit out
   * next big blind" while dealt in, "Leave after this hand" while in a hand ("Leave table"
   * does it at once between hands), "Auto top-up" always. */
  function renderSeatOptions(you, out, inHand) {
    const options = you.options || {};
    $("opt-sit-out-bb").checked = Boolean(options.sit_out_next_big_blind);
    $("opt-leave-after").checked = Boolean(options.leave_after_hand);
    $("opt-auto-top-up").checked = Boolean(options.auto_top_up);
    $("opt-sit-out-bb-wrap").hidden = out;
    $("opt-leave-after-wrap").hidden = !inHand;
  }

  /* "Take the seat" (a waiting-list offer) and "join a game" open this page with ?take=N:
   * once the table is drawn, the sit dialog opens at seat N, or the first empty seat. */
  let takeSeat = new URLSearchParams(location.search).get("take");

  function takeOfferedSeat() {
    if (takeSeat === null || !state || !state.you || stopped) return;
    const wanted = parseInt(takeSeat, 10);
    takeSeat = null;
    history.replaceState(null, "", location.pathname);
    const seated = state.you.seat !== null && state.you.seat !== undefined;
    const free = state.seats.filter((s) => !s.player).map((s) => s.seat);
    if (seated || !free.length || seatsHeld()) return;
    openSitDialog(free.includes(wanted) ? wanted : free[0]);
  }

  /* Why ratholing moved this player's range (docs/rules.md, RULES.md 5), with a link to it. */
  function explainBuyInRule(rule) {
    const note = $("sit-rule");
    note.replaceChildren();
    note.hidden = !rule;
    if (!rule) return;
    const time = window.roomClock(rule.until);
    const words = {
      at_least_left_with: gettext("You left this table less than 30 minutes ago with %(amount)s, so until %(time)s you bring back at least that much (the ratholing rule)."),
      up_to_left_with: gettext("You left this table less than 30 minutes ago with %(amount)s, so until %(time)s you bring back at least the table's maximum, and up to that much (the ratholing rule)."),
      exactly_left_with: gettext("You came back soon after leaving with a big stack five times today, so until %(time)s you bring back exactly the %(amount)s you left with (the ratholing rule)."),
    }[rule.rule];
    note.append(fill(words, { amount: money(rule.left_with), time: time }), " ");
    const link = el("a", null, gettext("Read the rule"));
    link.href = config.rules_url + "#buy-in";
    link.target = "_blank";
    note.append(link);
  }

  /* A player with no chips left is offered a re-buy in the table's range (a fresh buy-in from
   * the wallet: `top_up` with nothing at the table), then sat in; or the way to the cashier
   * when the wallet cannot cover the minimum. */
  let rebuySitIn = false;

  function renderRebuy(busted, you, out) {
    const form = $("rebuy-form");
    form.hidden = !busted;
    if (!busted) {
      if (rebuySitIn && out) {
        rebuySitIn = false;
        send({ type: "sit_in", post_big_blind: false });
      }
      return;
    }
    const low = state.table.min_buy_in;
    const high = Math.min(state.table.max_buy_in, you.wallet ?? state.table.max_buy_in);
    const short = you.wallet !== undefined && you.wallet !== null && you.wallet < low;
    let text = fill(gettext("You are out of chips. Buy in again for %(low)s to %(high)s to keep playing."),
      { low: money(low), high: money(state.table.max_buy_in) });
    if (short) text += " " + fill(gettext("Your wallet holds %(amount)s."), { amount: money(you.wallet) });
    $("rebuy-text").textContent = text;
    $("rebuy-cashier").hidden = !short;
    $("rebuy-submit").disabled = short;
    const input = $("rebuy-amount");
    input.min = dollarsValue(low);
    input.max = dollarsValue(Math.max(low, high));
    if (document.activeElement !== input) input.value = dollarsValue(Math.max(low, high));
  }

  function openSitDialog(seat) {
    const you = state.you || {};
    const range = you.buy_in_range || [state.table.min_buy_in, state.table.max_buy_in];
    sitSeat = seat;
    sitKey = clientKey(); // one per dialog: a double submit moves money once
    $("sit-seat").textContent = seat;
    const high = Math.min(range[1], you.wallet ?? range[1]);
    $("sit-range").textContent =
      fill(gettext("Buy in between %(low)s and %(high)s."), { low: money(range[0]), high: money(range[1]) }) +
      (you.wallet !== undefined ? " " + fill(gettext("Your wallet holds %(amount)s."), { amount: money(you.wallet) }) : "");
    if (you.wallet !== undefined && you.wallet !== null && you.wallet < range[0]) {
      // Not enough to sit: say so, and where to deposit, rather than a refusal after submit.
      const link = el("a", "cashier-link", gettext("Deposit at the cashier"));
      link.id = "sit-cashier";
      link.href = config.cashier_url;
      $("sit-range").append(" ", el("strong", null, gettext("That is less than the minimum buy-in.")), " ", link);
    }
    explainBuyInRule(you.buy_in_rule);
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
          fill(gettext("The buy-in must be between %(low)s and %(high)s."), { low: money(range[0]), high: money(range[1]) });
        return;
      }
      if (you.wallet !== undefined && cents > you.wallet) {
        $("sit-error").textContent = fill(gettext("Your wallet holds only %(amount)s."), { amount: money(you.wallet) });
        return;
      }
      const post = document.querySelector('input[name="bb"]:checked').value === "post";
      if (send({ type: "sit", seat: sitSeat, buy_in: cents, post_big_blind: post, key: sitKey })) {
        $("sit-dialog").close();
      }
    });
    $("sit-cancel").addEventListener("click", () => $("sit-dialog").close());
    $("waiting-join").addEventListener("click", () => send({ type: "waiting_join" }));
    $("show-cards").addEventListener("click", () => send({ type: "show_cards" }));
    $("waiting-leave").addEventListener("click", () => send({ type: "waiting_leave" }));
    $("sit-out").addEventListener("click", () => send({ type: "sit_out" }));
    $("sit-in").addEventListener("click", () =>
      send({ type: "sit_in", post_big_blind: $("sit-in-post-bb").checked }),
    );
    $("seat-options").addEventListener("change", (event) => {
      const box = event.target;
      if (!box.dataset.option) return;
      // Shown as the server has it until its answer (a refused frame changes nothing).
      if (!send({ type: "seat_options", [box.dataset.option]: box.checked })) box.checked = !box.checked;
    });
    $("post-bb-now").addEventListener("click", () => send({ type: "post_big_blind" }));
    $("wait-bb").addEventListener("click", () => send({ type: "wait_big_blind" }));
    $("rebuy-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const you = state.you || {};
      const low = state.table.min_buy_in;
      const high = Math.min(state.table.max_buy_in, you.wallet ?? state.table.max_buy_in);
      const cents = toCents($("rebuy-amount").value);
      if (cents === null || cents < low || cents > high) {
        toast(fill(gettext("The buy-in must be between %(low)s and %(high)s."), { low: money(low), high: money(high) }), "error");
        return;
      }
      if (send({ type: "top_up", amount: cents, key: clientKey() })) rebuySitIn = true;
    });
    $("top-up-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const cents = toCents($("top-up-amount").value);
      if (!cents || cents <= 0) {
        toast(gettext("Enter the amount to add, in dollars."));
        return;
      }
      if (send({ type: "top_up", amount: cents, key: clientKey() })) {
        $("top-up-amount").value = ""; // a second click finds no amount: one top-up per entry
      }
    });
    $("leave").addEventListener("click", () => {
      // In a hand the server checks for a leaving player while a check is free and folds
      // at a bet; an all-in hand plays on to its end (poker/services/seating.py table_leave).
      const hand = state.hand && !state.hand.result ? state.hand : null;
      const mine = hand && hand.seats.find((s) => s.seat === state.you.seat && !s.folded);
      let question = gettext("Leave the table? Your chips go back to your wallet.");
      if (mine && mine.all_in) {
        question = gettext("Leave the table? You are all-in: your hand stays in play until it ends, then your chips and anything it wins go back to your wallet.");
      } else if (mine && mine.bet >= hand.current_bet) {
        question = gettext("Leave the table? You check while checking is free and leave when the hand ends; your chips go back to your wallet.");
      } else if (mine) {
        question = gettext("Leave the table? Your hand is folded and your chips go back to your wallet.");
      }
      if (window.confirm(question)) send({ type: "leave" });
    });
  }

  // ------------------------------------------------------------------ result and log

  /* The hash of the room's seed for the next hand, published before it is dealt (and before
   * any client seed set from now on): docs/fairness.md. */
  function renderNextSeed() {
    const hash = state.next_server_seed_hash;
    $("next-seed").hidden = !hash;
    if (hash) {
      $("next-seed-hash").textContent = hash.slice(0, 16) + "…";
      $("next-seed-hash").title = hash;
    }
  }

  /* Between hands, a player of the last hand whose cards nobody saw may show them. */
  function renderShowCards() {
    const button = $("show-cards");
    const last = state.last_result;
    const seat = state.you ? state.you.seat : null;
    const dealt = Boolean(last && !last.cancelled && seat &&
      (last.seats || []).some((s) => s.seat === seat));
    button.hidden = stopped || Boolean(state.hand) || Boolean(runout) || !dealt ||
      Boolean(shownMap(last)[seat]);
  }

  function renderResult() {
    const result = lastResult();
    const section = $("result");
    if (!result || runout) {
      section.hidden = true;
      return;
    }
    section.hidden = false;
    const body = $("result-body");
    body.replaceChildren();
    // The hand's public id, the same in the cashier, My hands, the exports and the admin.
    const handNumber = state.hand && state.hand.result
      ? state.hand.id
      : state.last_result && state.last_result.hand_id;
    if (handNumber) body.append(el("p", "result-hand", fill(gettext("Hand #%(number)s"), { number: handNumber })));
    if (result.cancelled) {
      body.append(el("p", "result-line cancelled", fill(gettext("Cancelled: %(reason)s Every bet went back to its owner."),
        { reason: cancelReason(result) })));
      return;
    }
    const shown = shownMap(result);
    const list = el("ul", "result-lines");
    // Run twice, each run's lines come under its board; here only a pot nobody else could win
    // (not run twice) and the rake.
    const whole = runs.twice(result)
      ? Object.assign({}, result, { pots: result.pots.map((pot) => (pot.runs ? Object.assign({}, pot, { high: [], low: [] }) : pot)) })
      : result;
    resultLines(whole, shown).forEach((line) => list.append(el("li", "result-line", line)));
    if (list.children.length) body.append(list);
    // A board run twice shows both runs, each named, with who won each run's half of each pot.
    const boards = runs.twice(result) ? result.boards : [result.board || []].filter((cards) => cards.length);
    boards.forEach((cards, run) => {
      const board = el("div", "result-board");
      if (boards.length === 2) {
        board.setAttribute("aria-label", run ? gettext("Second board") : gettext("First board"));
        board.append(el("span", "run-label", run ? gettext("Run 2") : gettext("Run 1")));
      }
      cards.forEach((c) => board.append(cardEl(c)));
      body.append(board);
      if (boards.length === 2) {
        const one = runs.runResult(result, run);
        const lines = el("ul", "result-lines run-lines");
        lines.dataset.run = run + 1;
        resultLines(one, shownMap(one)).forEach((line) => lines.append(el("li", "result-line", line)));
        body.append(lines);
      }
    });
    Object.values(shown).forEach((entry) => {
      const row = el("div", "result-shown");
      row.append(el("span", "who", nameOf(entry.seat)));
      const cards = el("span", "cards");
      entry.cards.forEach((c) => cards.append(cardEl(c)));
      row.append(cards);
      row.append(el("span", "hand-name", shownHandName(entry)));
      body.append(row);
    });
  }

  /* A shown hand's name, high and low; on a board run twice, as read on each run ("two pair,
   * nines and fives / one pair, twos"): the first run's alone would name a hand that lost the
   * second. */
  function shownHandName(entry) {
    const reads = entry.runs && entry.runs.length === 2 ? entry.runs : [entry];
    return reads
      .map((read) => [handName(read.high), handName(read.low)].filter(Boolean).join(" · "))
      .filter(Boolean)
      .join(" / ");
  }

  /* Why a hand was cancelled, in the page's language when the room's code says it (the
   * stored reason is in English), else as the room wrote it. */
  function cancelReason(cancel) {
    const known = {
      stuck: gettext("The hand stopped moving, so it was cancelled."),
      state_refused: gettext("The hand's saved state could not be read back, so it was cancelled."),
      staff: gettext("The room's staff cancelled this hand; every bet is returned."),
    };
    return known[cancel.code] || cancel.reason || gettext("the hand could not go on");
  }

  function joinNames(seats) {
    const list = seats.map(nameOf);
    if (list.length <= 1) return list.join("");
    return fill(gettext("%(names)s and %(last)s"), { names: list.slice(0, -1).join(", "), last: list[list.length - 1] });
  }

  /* One sentence per pot and side: who won how much, and with which hand (not with `hands`
   * false). */
  function resultLines(result, shown, options) {
    const hands = !options || options.hands !== false;
    const lines = [];
    const contested = (result.showdown || []).length > 0;
    const many = (result.pots || []).length > 1;
    (result.pots || []).forEach((pot, k) => {
      const potName = many ? (k ? fill(gettext("side pot %(number)s"), { number: k }) : gettext("the main pot")) : gettext("the pot");
      const sides = [["high", pot.high || []], ["low", pot.low || []]];
      const hiLo = (pot.low || []).length > 0;
      sides.forEach(([side, shares]) => {
        // A pot of nothing (a big blind whose bet came back uncalled) wins nobody anything.
        const total = shares.reduce((sum, s) => sum + s.amount, 0);
        if (!shares.length || total <= 0) return;
        const seats = shares.map((s) => s.seat);
        const from = !hiLo ? potName
          : fill(side === "high" ? gettext("the high half of %(pot)s") : gettext("the low half of %(pot)s"), { pot: potName });
        const words = seats.length > 1 ? gettext("%(names)s split %(amount)s from %(pot)s") : gettext("%(names)s wins %(amount)s from %(pot)s");
        let line = fill(words, { names: joinNames(seats), amount: money(total), pot: from });
        const entry = shown[seats[0]];
        const value = entry && entry[side];
        if (contested && value && hands) line = fill(gettext("%(line)s with %(hand)s"), { line: line, hand: handName(value) });
        else if (!contested) line = fill(gettext("%(line)s (uncontested)"), { line: line });
        lines.push(line);
      });
    });
    if (result.rake) lines.push(fill(gettext("Rake %(amount)s"), { amount: money(result.rake) }));
    return lines;
  }

  function describe(event) {
    const who = event.seat !== undefined ? nameOf(event.seat) : "";
    const allIn = event.all_in ? " " + gettext("(all-in)") : "";
    const say = (format, values) => fill(format, Object.assign({ who: who }, values || {}));
    switch (event.type) {
      case "hand_started":
        return fill(gettext("New hand. %(name)s has the button."), { name: nameOf(event.button) });
      case "ante_posted":
        return say(gettext("%(who)s posts an ante %(amount)s"), { amount: money(event.amount) }) + allIn;
      case "blind_posted":
        return say({
          small: gettext("%(who)s posts the small blind %(amount)s"),
          big: gettext("%(who)s posts the big blind %(amount)s"),
          "extra big": gettext("%(who)s posts the extra big blind %(amount)s"),
        }[event.blind] || gettext("%(who)s posts a blind %(amount)s"), { amount: money(event.amount) }) + allIn;
      case "hole_cards_dealt": {
        // The table's event shows nobody's cards; your own came just before, in your part.
        const own = mirror.ownPart;
        const mine = own && own.hand && own.hand.id === event.hand_id ? own.hand.cards : null;
        return mine ? fill(gettext("Dealt to you: %(cards)s"), { cards: mine.map(cardLabel).join(" ") }) : gettext("Cards are dealt.");
      }
      case "action":
        switch (event.action) {
          case "fold": return say(gettext("%(who)s folds"));
          case "check": return say(gettext("%(who)s checks"));
          case "call": return say(gettext("%(who)s calls %(amount)s"), { amount: money(event.added) }) + allIn;
          case "bet": return say(gettext("%(who)s bets %(amount)s"), { amount: money(event.to) }) + allIn;
          case "raise": return say(gettext("%(who)s raises to %(amount)s"), { amount: money(event.to) }) + allIn;
          case "all_in": return say(gettext("%(who)s goes all-in for %(amount)s"), { amount: money(event.to) });
          default: return who + " " + event.action;
        }
      case "uncalled_bet_returned":
        return say(gettext("%(amount)s uncalled, back to %(who)s"), { amount: money(event.amount) });
      case "street_dealt":
        // A board run twice: which run's street ("Run 2 · Flop: …").
        return (event.run ? (event.run === 2 ? gettext("Run 2") : gettext("Run 1")) + " · " : "") +
          streetLabel(event.street) + ": " + event.cards.map(cardLabel).join(" ");
      case "showdown":
        return gettext("Showdown.");
      case "cards_shown":
        if (event.voluntary) {
          return say(gettext("%(who)s chooses to show %(cards)s"), { cards: event.cards.map(cardLabel).join(" ") });
        }
        return say(gettext("%(who)s shows %(cards)s — %(hands)s"), {
          cards: event.cards.map(cardLabel).join(" "), hands: shownHands(event),
        });
      case "cards_mucked":
        return say(gettext("%(who)s mucks"));
      case "pot_awarded": {
        const { winners, scoop } = window.roomPotWinners(event);
        if (!winners.length) return gettext("Nothing was left in the pot: every bet went back.");
        const label = potLabel(event.pot, event.amount, gettext("Pot %(amount)s")) + ": ";
        if (scoop) return label + fill(gettext("%(who)s scoops %(amount)s"), { who: nameOf(winners[0].seat), amount: money(winners[0].amount) });
        return label + winners.map((s) => nameOf(s.seat) + " " + money(s.amount)).join(", ");
      }
      case "hand_ended":
        return gettext("Hand over.") + (event.rake ? " " + fill(gettext("Rake %(amount)s."), { amount: money(event.rake) }) : "");
      case "player_sat":
        return fill(event.status === "waiting_big_blind" ? gettext("%(name)s sits down at seat %(seat)s, waiting for the big blind") : gettext("%(name)s sits down at seat %(seat)s"),
          { name: event.player ? event.player.display_name : who, seat: event.seat });
      case "player_left":
        return fill({ sit_out_limit: gettext("%(name)s leaves the table (sat out too long)"), session_limit: gettext("%(name)s leaves the table (session limit reached)") }[event.reason] || gettext("%(name)s leaves the table"),
          { name: event.player ? event.player.display_name : who });
      case "player_sat_out":
        return say({ timeout: gettext("%(who)s sits out (ran out of time)"), no_chips: gettext("%(who)s sits out (no chips left)"), big_blind: gettext("%(who)s sits out at the big blind"), excluded: gettext("%(who)s sits out (took a break from play)") }[event.reason] || gettext("%(who)s sits out"));
      case "player_sat_in":
        return say(event.status === "waiting_big_blind" ? gettext("%(who)s is back, waiting for the big blind") : gettext("%(who)s is back"));
      case "big_blind_choice":
        return say(event.posts_big_blind
          ? gettext("%(who)s posts a big blind to play the next hand")
          : gettext("%(who)s waits for the big blind"));
      case "button_drawn": {
        const draws = Object.entries(event.cards || {})
          .map(([seat, card]) => nameOf(seat) + " " + cardLabel(card));
        return fill(gettext("Draw for the button: %(draws)s. %(name)s gets it."), { draws: draws.join(", "), name: nameOf(event.button) });
      }
      case "player_leaving":
        return say(gettext("%(who)s leaves after this hand"));
      case "player_topped_up":
        return say(event.auto ? gettext("%(who)s adds %(amount)s (auto top-up)") : gettext("%(who)s adds %(amount)s"), { amount: money(event.amount) });
      case "player_connection":
        return say(event.connected ? gettext("%(who)s is connected") : gettext("%(who)s lost the connection"));
      case "timeout":
        return say(event.action === "check" ? gettext("%(who)s ran out of time and checks") : gettext("%(who)s ran out of time and folds"));
      case "hand_cancelled":
        return fill(gettext("Hand cancelled: %(reason)s"), { reason: cancelReason(event) });
      case "hand_commitment":
        return fill(gettext("The next hand is committed before its first card: %(commitment)s"),
          { commitment: String(event.commitment || "").slice(0, 16) + "…" });
      case "break_started":
        return fill(gettext("Break: the next hand is dealt at %(time)s"), { time: new Date(event.until).toLocaleTimeString() });
      case "break_ended":
        return gettext("The break is over: play resumes.");
      case "hand_revealed":
        return gettext("This hand's deck, salt and seeds are revealed: anyone dealt in can check it.");
      case "runs_answered":
        return say(gettext("%(who)s answered: run it twice?"));
      case "runs_chosen":
        return event.runs === 2 ? gettext("Everyone agreed: the board is run twice") : gettext("The board is run once");
      default: {
        // Table events (sitting, leaving, timeouts, cancellations): say what the server said.
        if (event.message) return event.message;
        const words = event.type.replace(/[._]/g, " ");
        return (who ? who + ": " : "") + words + (event.amount ? " " + money(event.amount) : "");
      }
    }
  }

  /* A showdown's hand names for the log, from the result's structured hands when the page has
     them (the event itself carries the engine's English names). */
  function shownHands(event) {
    // Events are logged before the page draws the state they came with: read that state here.
    const now = mirror.publicPart ? composed() : state;
    const last = now && now.last_result;
    const result = now && ((now.hand && now.hand.result) || (last && (last.result || last)));
    const entry = result && (result.showdown || []).find((e) => e.seat === event.seat);
    const named = (high, low) => [high, low].filter(Boolean).join(" · ");
    // A board run twice: the hand read on each run's board.
    if (entry && entry.runs) {
      return entry.runs.map((read, k) => (k ? gettext("Run 2") : gettext("Run 1")) + ": " +
        named(handName(read.high), handName(read.low))).join("; ");
    }
    if (entry) return named(handName(entry.high), handName(entry.low));
    return named(event.high, event.low);
  }

  /* A page that loads (or reconnects to) a table in mid-hand writes the hand's log so far from
     the snapshot, as this player may see it; a hand the log already follows is not repeated. */
  let loggedHand = null;
  function logReplay(frame) {
    const hand = frame.state && frame.state.hand;
    if (!hand || !Array.isArray(frame.log) || loggedHand === hand.id) return;
    frame.log.forEach(logEvent);
    loggedHand = hand.id;
  }

  function logEvent(event) {
    const log = $("log");
    const item = el("li", "ev ev-" + event.type, describe(event));
    log.prepend(item);
    while (log.children.length > LOG_LIMIT) log.lastChild.remove();
  }

  /* A message for a few seconds. The same message again restarts the one shown instead of
   * stacking another over the seat options, and at most TOASTS_SHOWN are shown at once. */
  const TOASTS_SHOWN = 2;
  function toast(message, kind) {
    const box = $("toasts");
    for (const shown of [...box.children]) {
      if (shown.textContent === message) { clearTimeout(shown.leaving); clearTimeout(shown.gone); shown.remove(); }
    }
    const node = el("div", "toast " + (kind || "info"), message);
    node.setAttribute("role", "alert");
    box.append(node);
    while (box.children.length > TOASTS_SHOWN) box.firstElementChild.remove();
    node.leaving = setTimeout(() => node.classList.add("leaving"), 5000);
    node.gone = setTimeout(() => node.remove(), 5600);
  }

  /* Keyboard on a laptop: F folds, C checks or calls, R bets or raises the amount shown. */
  function bindKeys() {
    document.addEventListener("keydown", (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
      const target = event.target;
      if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" ||
        target.isContentEditable)) return;
      if ($("sit-dialog").open || (notes && notes.editing()) || !legal()) return;
      const key = event.key.toLowerCase();
      const visible = (id) => !$(id).hidden && !$(id).disabled;
      if (key === "f" && visible("act-fold")) $("act-fold").click();
      else if (key === "c" && visible("act-check")) $("act-check").click();
      else if (key === "c" && visible("act-call")) $("act-call").click();
      else if (key === "r" && visible("act-raise")) $("act-raise").click();
    });
  }

  // ------------------------------------------------------------------ start

  bindActions();
  bindPreActions();
  bindSeatControls();
  window.tableChat.init(send);
  bindKeys();
  setInterval(tick, 250);
  // For browser tests and for drawing a saved state by hand: read the state, render one.
  window.tablePage = {
    render: render, logEvent: logEvent, toast: toast, state: () => state,
  };
  socket.connect();
})();
