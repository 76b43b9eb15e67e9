/* Hand names in the page's language, from the engine's structured hand ({category, cards},
   cards in reading order: sets first, then by rank; a wheel reads 5-4-3-2-A). The same words
   and rules as config/hand_names.py, for the pages' scripts; the strings come from Django's
   JavaScript catalogue (jsi18n/), loaded by base.html before this file. */
(function () {
  "use strict";
  const SINGULAR = {
    "2": pgettext("card rank", "two"), "3": pgettext("card rank", "three"),
    "4": pgettext("card rank", "four"), "5": pgettext("card rank", "five"),
    "6": pgettext("card rank", "six"), "7": pgettext("card rank", "seven"),
    "8": pgettext("card rank", "eight"), "9": pgettext("card rank", "nine"),
    "T": pgettext("card rank", "ten"), "J": pgettext("card rank", "jack"),
    "Q": pgettext("card rank", "queen"), "K": pgettext("card rank", "king"),
    "A": pgettext("card rank", "ace"),
  };
  const PLURAL = {
    "2": pgettext("card ranks", "twos"), "3": pgettext("card ranks", "threes"),
    "4": pgettext("card ranks", "fours"), "5": pgettext("card ranks", "fives"),
    "6": pgettext("card ranks", "sixes"), "7": pgettext("card ranks", "sevens"),
    "8": pgettext("card ranks", "eights"), "9": pgettext("card ranks", "nines"),
    "T": pgettext("card ranks", "tens"), "J": pgettext("card ranks", "jacks"),
    "Q": pgettext("card ranks", "queens"), "K": pgettext("card ranks", "kings"),
    "A": pgettext("card ranks", "aces"),
  };
  const OF_PLURAL = {
    "2": pgettext("card ranks of a pair, trips or quads", "twos"),
    "3": pgettext("card ranks of a pair, trips or quads", "threes"),
    "4": pgettext("card ranks of a pair, trips or quads", "fours"),
    "5": pgettext("card ranks of a pair, trips or quads", "fives"),
    "6": pgettext("card ranks of a pair, trips or quads", "sixes"),
    "7": pgettext("card ranks of a pair, trips or quads", "sevens"),
    "8": pgettext("card ranks of a pair, trips or quads", "eights"),
    "9": pgettext("card ranks of a pair, trips or quads", "nines"),
    "T": pgettext("card ranks of a pair, trips or quads", "tens"),
    "J": pgettext("card ranks of a pair, trips or quads", "jacks"),
    "Q": pgettext("card ranks of a pair, trips or quads", "queens"),
    "K": pgettext("card ranks of a pair, trips or quads", "kings"),
    "A": pgettext("card ranks of a pair, trips or quads", "aces"),
  };
  const CATEGORIES = {
    "high card": pgettext("hand category", "high card"),
    "one pair": pgettext("hand category", "one pair"),
    "two pair": pgettext("hand category", "two pair"),
    "three of a kind": pgettext("hand category", "three of a kind"),
    "straight": pgettext("hand category", "straight"),
    "flush": pgettext("hand category", "flush"),
    "full house": pgettext("hand category", "full house"),
    "four of a kind": pgettext("hand category", "four of a kind"),
    "straight flush": pgettext("hand category", "straight flush"),
    "royal flush": pgettext("hand category", "royal flush"),
    "low": pgettext("hand category", "low"),
  };

  function categoryName(category) {
    return CATEGORIES[category] || category || "";
  }

  function handName(hand) {
    if (!hand) return "";
    const category = hand.category;
    const ranks = (hand.cards || []).map((card) => card[0]);
    if (ranks.length !== 5 || !(category in CATEGORIES)) return hand.name || categoryName(category);
    const top = ranks[0];
    const next = category === "full house" ? ranks[3] : ranks[2];
    const fill = (format, values) => interpolate(format, values, true);
    if (category === "low") return fill(gettext("%(ranks)s low"), { ranks: ranks.join("-") });
    if (category === "royal flush" || (category === "straight flush" && top === "A")) {
      return pgettext("hand name", "royal flush");
    }
    if (category === "straight flush") return fill(gettext("straight flush, %(top)s high"), { top: SINGULAR[top] });
    if (category === "straight") return fill(gettext("straight, %(top)s high"), { top: SINGULAR[top] });
    if (category === "flush") return fill(gettext("flush, %(top)s high"), { top: SINGULAR[top] });
    if (category === "high card") return fill(gettext("high card, %(top)s"), { top: SINGULAR[top] });
    if (category === "one pair") return fill(gettext("one pair, %(tops)s"), { tops: OF_PLURAL[top] });
    if (category === "three of a kind") return fill(gettext("three of a kind, %(tops)s"), { tops: OF_PLURAL[top] });
    if (category === "four of a kind") return fill(gettext("four of a kind, %(tops)s"), { tops: OF_PLURAL[top] });
    if (category === "two pair") {
      return fill(gettext("two pair, %(tops)s and %(nexts)s"), { tops: PLURAL[top], nexts: PLURAL[next] });
    }
    return fill(gettext("full house, %(tops)s full of %(nexts)s"), { tops: PLURAL[top], nexts: PLURAL[next] });
  }

  window.handNames = { handName: handName, categoryName: categoryName };
})();
