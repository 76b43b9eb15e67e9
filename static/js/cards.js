/* Cards as the room draws them (the four-colour deck of static/css/table.css), for the table
   page and the hand replayer: `roomCards.element("As")` is a face-up card, `element(null)` a
   card face down, `roomCards.label("Td")` the short text "10♦". Words come from Django's
   JavaScript catalogue (jsi18n/), loaded by base.html before this file. */
(function () {
  "use strict";
  const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };
  const SUIT_NAMES = {
    s: pgettext("suit", "spades"), h: pgettext("suit", "hearts"),
    d: pgettext("suit", "diamonds"), c: pgettext("suit", "clubs"),
  };
  const RANK_NAMES = { T: "10" };
  const rankOf = (card) => RANK_NAMES[card[0]] || card[0];

  function element(card) {
    const el = document.createElement("span");
    if (!card) {
      el.className = "card back";
      el.setAttribute("aria-label", gettext("hidden card"));
      return el;
    }
    el.className = "card suit-" + card[1];
    el.dataset.card = card;
    el.setAttribute("aria-label", interpolate(gettext("%(rank)s of %(suit)s"),
      { rank: rankOf(card), suit: SUIT_NAMES[card[1]] }, true));
    const rank = document.createElement("b");
    rank.textContent = rankOf(card);
    const suit = document.createElement("i");
    suit.textContent = SUITS[card[1]];
    el.append(rank, suit);
    return el;
  }

  window.roomCards = { element: element, label: (card) => rankOf(card) + SUITS[card[1]] };
})();
