/* The hand replayer (histories/hand.html): steps through the hand's record, event by event or
   street by street, with buttons and the keyboard (arrows, Page Up/Down, Home/End), or plays
   by itself at a chosen speed (Play, or the space bar). Each step
   of the record carries the table after its event (stacks, the street's bets, pot, board), so
   the page only draws; it computes no amount. Cards are those the server let this viewer see. */
(function () {
  "use strict";
  const record = JSON.parse(document.getElementById("hand-record").textContent);
  const steps = record.steps;
  // A Sit & Go's hand is played in tournament chips, not dollars.
  const money = record.tournament ? window.roomChips : window.roomDollars;
  const names = {};
  record.seats.forEach((seat) => { names[seat.seat] = seat.player; });
  // The viewer's own notes on the other players, by seat (their colour's dot beside the name).
  const notesEl = document.getElementById("hand-notes");
  const notes = notesEl ? JSON.parse(notesEl.textContent) || {} : {};
  const fill = (text, values) => interpolate(text, values, true);

  const cardEl = window.roomCards.element;
  const cardLabel = window.roomCards.label;

  /* The cards each seat holds face up or down at step `upto`: dealt cards (own, or every one
     for staff) from the deal, and shown cards from the showdown. */
  function holeCards(upto) {
    const cards = {};
    for (let i = 0; i <= upto; i++) {
      const event = steps[i].event;
      if (event.type === "hole_cards_dealt") {
        event.hole_cards.forEach(([seat, held]) => { cards[seat] = held || [null, null, null, null]; });
      } else if (event.type === "cards_shown") {
        cards[event.seat] = event.cards;
      } else if (event.type === "action" && event.action === "fold") {
        cards[event.seat] = "folded";
      }
    }
    return cards;
  }

  function describe(event) {
    const who = names[event.seat] || "";
    switch (event.type) {
      case "hand_started": return fill(gettext("Hand #%(number)s: the button is at seat %(seat)s."), { number: record.id, seat: event.button });
      case "ante_posted": return fill(gettext("%(player)s posts an ante, %(amount)s."), { player: who, amount: money(event.amount) });
      case "blind_posted": return fill(event.blind === "small" ? gettext("%(player)s posts the small blind, %(amount)s.") : gettext("%(player)s posts a big blind, %(amount)s."), { player: who, amount: money(event.amount) });
      case "hole_cards_dealt": return gettext("Four cards each are dealt.");
      case "action":
        if (event.action === "fold") return fill(gettext("%(player)s folds."), { player: who });
        if (event.action === "check") return fill(gettext("%(player)s checks."), { player: who });
        if (event.action === "call") return fill(gettext("%(player)s calls %(amount)s."), { player: who, amount: money(event.added) });
        if (event.action === "bet") return fill(gettext("%(player)s bets %(amount)s."), { player: who, amount: money(event.to) });
        return fill(gettext("%(player)s raises to %(amount)s."), { player: who, amount: money(event.to) });
      case "uncalled_bet_returned": return fill(gettext("%(amount)s uncalled is returned to %(player)s."), { player: who, amount: money(event.amount) });
      case "street_dealt": return fill(gettext("The %(street)s: %(cards)s."), { street: { flop: gettext("flop"), turn: gettext("turn"), river: gettext("river") }[event.street] || event.street, cards: event.cards.map(cardLabel).join(" ") });
      case "showdown": return gettext("Showdown.");
      case "cards_shown": return fill(gettext("%(player)s shows %(cards)s."), { player: who, cards: event.cards.map(cardLabel).join(" ") });
      case "cards_mucked": return fill(gettext("%(player)s mucks."), { player: who });
      case "pot_awarded": {
        const { winners, scoop } = window.roomPotWinners(event);
        if (scoop) return fill(gettext("%(player)s scoops %(amount)s."), { player: names[winners[0].seat], amount: money(winners[0].amount) });
        const shares = winners.map((share) => fill(gettext("%(player)s wins %(amount)s"), { player: names[share.seat] || share.seat, amount: money(share.amount) }));
        return shares.join("; ") + ".";
      }
      case "hand_ended": return gettext("The hand is over.");
      default: return event.type;
    }
  }

  const seatsEl = document.getElementById("replay-seats");
  const boardEl = document.getElementById("replay-board");
  const potEl = document.getElementById("replay-pot");
  const stepEl = document.getElementById("replay-step");
  const positionEl = document.getElementById("replay-position");
  const seatNumbers = record.seats.map((seat) => seat.seat);
  const seatEls = {};
  seatNumbers.forEach((number, k) => {
    const li = document.createElement("li");
    li.className = "replay-seat";
    li.dataset.seat = number;
    /* Around the oval, the viewer's seat at the bottom, as at the table. */
    const mine = Math.max(0, seatNumbers.indexOf(record.you));
    const angle = Math.PI / 2 + (2 * Math.PI * (k - mine)) / seatNumbers.length;
    li.style.left = (50 + 42 * Math.cos(angle)) + "%";
    li.style.top = (50 + 40 * Math.sin(angle)) + "%";
    seatsEl.append(li);
    seatEls[number] = li;
  });

  let at = 0;
  function draw() {
    const step = steps[at];
    const stacks = Object.fromEntries(step.stacks);
    const bets = Object.fromEntries(step.bets);
    const cards = holeCards(at);
    const acting = step.event.seat;
    seatNumbers.forEach((number) => {
      const li = seatEls[number];
      li.replaceChildren();
      li.classList.toggle("acting", number === acting);
      li.classList.toggle("folded", cards[number] === "folded");
      li.classList.toggle("you", number === record.you);
      const hole = document.createElement("div");
      hole.className = "hole";
      if (Array.isArray(cards[number])) cards[number].forEach((card) => hole.append(cardEl(card)));
      const name = document.createElement("p");
      name.className = "replay-name";
      name.textContent = names[number];
      const note = notes[number];
      if (note && note.colour) {
        const tag = document.createElement("span");
        tag.className = "note-badge note-tag";
        tag.dataset.colour = note.colour;
        tag.title = note.label;
        const swatch = document.createElement("span");
        swatch.className = "note-swatch";
        const label = document.createElement("span");
        label.className = "visually-hidden";
        label.textContent = note.label;
        tag.append(swatch, label);
        name.prepend(tag);
      }
      if (number === record.button) {
        const button = document.createElement("span");
        button.className = "dealer-button";
        button.title = gettext("Dealer button");
        button.textContent = "D";
        name.append(" ", button);
      }
      const stack = document.createElement("p");
      stack.className = "replay-stack";
      stack.textContent = money(stacks[number] || 0);
      li.append(hole, name, stack);
      if (bets[number]) {
        const bet = document.createElement("p");
        bet.className = "replay-bet";
        bet.textContent = money(bets[number]);
        li.append(bet);
      }
    });
    boardEl.replaceChildren(...step.board.map(cardEl));
    potEl.textContent = fill(gettext("Pot %(amount)s"), { amount: money(step.pot) });
    stepEl.textContent = describe(step.event);
    positionEl.textContent = fill(gettext("Step %(step)s of %(steps)s"), { step: at + 1, steps: steps.length });
  }

  function go(to) {
    at = Math.max(0, Math.min(steps.length - 1, to));
    draw();
  }
  const isStreet = (k) => ["street_dealt", "showdown"].includes(steps[k].event.type);
  function streetNext() {
    let k = at + 1;
    while (k < steps.length - 1 && !isStreet(k)) k++;
    go(k);
  }
  function streetBack() {
    let k = at - 1;
    while (k > 0 && !isStreet(k)) k--;
    go(k);
  }
  const actions = {
    "replay-first": () => go(0), "replay-last": () => go(steps.length - 1),
    "replay-back": () => go(at - 1), "replay-next": () => go(at + 1),
    "replay-street-back": streetBack, "replay-street-next": streetNext,
  };
  /* Playing by itself: one step every `speed` ms (the chosen speed, changeable while it
     plays), from the start again if at the end, stopping at the last step or at any other
     control the viewer uses. */
  const playEl = document.getElementById("replay-play");
  const speedEl = document.getElementById("replay-speed");
  let timer = null;
  function stop() {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    playEl.setAttribute("aria-pressed", "false");
    playEl.textContent = playEl.dataset.play;
  }
  function tick() {
    if (at >= steps.length - 1) { stop(); return; }
    go(at + 1);
    timer = setTimeout(tick, Number(speedEl.value) || 1000);
  }
  function play() {
    if (timer !== null) { stop(); return; }
    if (at >= steps.length - 1) go(0);
    playEl.setAttribute("aria-pressed", "true");
    playEl.textContent = playEl.dataset.pause;
    timer = setTimeout(tick, Number(speedEl.value) || 1000);
  }
  Object.entries(actions).forEach(([id, act]) => document.getElementById(id).addEventListener("click", () => { stop(); act(); }));
  playEl.addEventListener("click", play);
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, select, textarea")) return;
    if (event.key === " ") { event.preventDefault(); play(); return; }
    const keys = { ArrowRight: actions["replay-next"], ArrowLeft: actions["replay-back"], Home: actions["replay-first"], End: actions["replay-last"], PageDown: streetNext, PageUp: streetBack };
    const act = keys[event.key];
    if (act) { event.preventDefault(); stop(); act(); }
  });
  go(0);
})();
