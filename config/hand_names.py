"""Hand names in the active language, from the engine's structured hand (category and cards).

The engine (no Django) names hands in English: "full house, kings full of sixes". Its hands
also carry `category` and `cards` in reading order (sets first, then by rank; a wheel reads
5-4-3-2-A), which is all a name needs: the ranks a name mentions are the first card's and, for
two pair and a full house, the second set's. So names are made here, at the edge, from
category and cards, for any hand the room ever stored. static/js/hand_names.js does the same
for the pages' scripts (same words, same rules).

French and Japanese word their hands differently ("paire de rois", "paire d'as"), so each
rank has three forms, each translated on its own (context): the singular ("king high"), the
plural ("kings and sixes") and the plural after "of" ("one pair, kings" in English; French
adds its "de"/"d'").
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, gettext_lazy, pgettext, pgettext_lazy

_SINGULAR = {
    "2": pgettext_lazy("card rank", "two"),
    "3": pgettext_lazy("card rank", "three"),
    "4": pgettext_lazy("card rank", "four"),
    "5": pgettext_lazy("card rank", "five"),
    "6": pgettext_lazy("card rank", "six"),
    "7": pgettext_lazy("card rank", "seven"),
    "8": pgettext_lazy("card rank", "eight"),
    "9": pgettext_lazy("card rank", "nine"),
    "T": pgettext_lazy("card rank", "ten"),
    "J": pgettext_lazy("card rank", "jack"),
    "Q": pgettext_lazy("card rank", "queen"),
    "K": pgettext_lazy("card rank", "king"),
    "A": pgettext_lazy("card rank", "ace"),
}
_PLURAL = {
    "2": pgettext_lazy("card ranks", "twos"),
    "3": pgettext_lazy("card ranks", "threes"),
    "4": pgettext_lazy("card ranks", "fours"),
    "5": pgettext_lazy("card ranks", "fives"),
    "6": pgettext_lazy("card ranks", "sixes"),
    "7": pgettext_lazy("card ranks", "sevens"),
    "8": pgettext_lazy("card ranks", "eights"),
    "9": pgettext_lazy("card ranks", "nines"),
    "T": pgettext_lazy("card ranks", "tens"),
    "J": pgettext_lazy("card ranks", "jacks"),
    "Q": pgettext_lazy("card ranks", "queens"),
    "K": pgettext_lazy("card ranks", "kings"),
    "A": pgettext_lazy("card ranks", "aces"),
}
_OF_PLURAL = {
    "2": pgettext_lazy("card ranks of a pair, trips or quads", "twos"),
    "3": pgettext_lazy("card ranks of a pair, trips or quads", "threes"),
    "4": pgettext_lazy("card ranks of a pair, trips or quads", "fours"),
    "5": pgettext_lazy("card ranks of a pair, trips or quads", "fives"),
    "6": pgettext_lazy("card ranks of a pair, trips or quads", "sixes"),
    "7": pgettext_lazy("card ranks of a pair, trips or quads", "sevens"),
    "8": pgettext_lazy("card ranks of a pair, trips or quads", "eights"),
    "9": pgettext_lazy("card ranks of a pair, trips or quads", "nines"),
    "T": pgettext_lazy("card ranks of a pair, trips or quads", "tens"),
    "J": pgettext_lazy("card ranks of a pair, trips or quads", "jacks"),
    "Q": pgettext_lazy("card ranks of a pair, trips or quads", "queens"),
    "K": pgettext_lazy("card ranks of a pair, trips or quads", "kings"),
    "A": pgettext_lazy("card ranks of a pair, trips or quads", "aces"),
}
# Every category the engine or a paytable names; "low" is the eight-or-better half.
CATEGORIES = {
    "high card": pgettext_lazy("hand category", "high card"),
    "one pair": pgettext_lazy("hand category", "one pair"),
    "two pair": pgettext_lazy("hand category", "two pair"),
    "three of a kind": pgettext_lazy("hand category", "three of a kind"),
    "straight": pgettext_lazy("hand category", "straight"),
    "flush": pgettext_lazy("hand category", "flush"),
    "full house": pgettext_lazy("hand category", "full house"),
    "four of a kind": pgettext_lazy("hand category", "four of a kind"),
    "straight flush": pgettext_lazy("hand category", "straight flush"),
    "royal flush": pgettext_lazy("hand category", "royal flush"),
    "low": pgettext_lazy("hand category", "low"),
}


def category_name(category: str | None) -> str:
    """A category ("full house") in the active language; an unknown one as it came."""
    if not category:
        return ""
    found = CATEGORIES.get(category)
    return str(found) if found is not None else category


# Hands named by their top rank alone: as one card ("%(top)s") or as the cards of a set
# ("%(tops)s").
_BY_TOP_RANK = {
    "straight flush": gettext_lazy("straight flush, %(top)s high"),
    "straight": gettext_lazy("straight, %(top)s high"),
    "flush": gettext_lazy("flush, %(top)s high"),
    "high card": gettext_lazy("high card, %(top)s"),
    "one pair": gettext_lazy("one pair, %(tops)s"),
    "three of a kind": gettext_lazy("three of a kind, %(tops)s"),
    "four of a kind": gettext_lazy("four of a kind, %(tops)s"),
}


def hand_name(hand: dict[str, Any] | None) -> str:
    """ "full house, kings full of sixes" (or "full aux rois par les six", "フルハウス、キングと6")
    for a hand given as {"category", "cards"} as the engine reports it."""
    if not hand:
        return ""
    category = hand.get("category")
    ranks = [card[0] for card in hand.get("cards") or []]
    if len(ranks) != 5 or category not in CATEGORIES:
        return str(hand.get("name") or category_name(category))
    top, nexts = ranks[0], ranks[3] if category == "full house" else ranks[2]
    single, plural, of_plural = str(_SINGULAR[top]), str(_PLURAL[top]), str(_OF_PLURAL[top])
    if category == "low":
        return gettext("%(ranks)s low") % {"ranks": "-".join(ranks)}
    if category == "royal flush" or (category == "straight flush" and top == "A"):
        return pgettext("hand name", "royal flush")
    if category in _BY_TOP_RANK:
        return str(_BY_TOP_RANK[category]) % {"top": single, "tops": of_plural}
    if category == "two pair":
        return gettext("two pair, %(tops)s and %(nexts)s") % {
            "tops": plural,
            "nexts": str(_PLURAL[nexts]),
        }
    return gettext("full house, %(tops)s full of %(nexts)s") % {
        "tops": plural,
        "nexts": str(_PLURAL[nexts]),
    }
