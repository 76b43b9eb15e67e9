"""Cards and wager names for the banked game's pages, drawn like the table page's."""

from django import template
from django.utils.html import format_html
from django.utils.translation import gettext, pgettext_lazy

from config import hand_names

register = template.Library()

RANK_NAMES = {"T": "10"}
SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
SUIT_NAMES = {
    "s": pgettext_lazy("suit", "spades"),
    "h": pgettext_lazy("suit", "hearts"),
    "d": pgettext_lazy("suit", "diamonds"),
    "c": pgettext_lazy("suit", "clubs"),
}
RANK_WORDS = {
    "A": pgettext_lazy("card", "Ace"),
    "K": pgettext_lazy("card", "King"),
    "Q": pgettext_lazy("card", "Queen"),
    "J": pgettext_lazy("card", "Jack"),
    "T": "10",
}
WAGER_NAMES = {
    "ante": pgettext_lazy("wager", "Ante"),
    "bet": pgettext_lazy("wager", "Bet"),
    "hole_card_bonus": pgettext_lazy("wager", "Hole Card Bonus"),
    "final_hand_bonus": pgettext_lazy("wager", "Final Hand Bonus"),
}


@register.simple_tag
def card(code: str) -> str:
    """One face-up card: rank and suit in the four-colour deck of static/css/table.css."""
    rank, suit = code[0], code[1]
    return format_html(
        '<span class="card suit-{}" data-card="{}" aria-label="{}"><b>{}</b><i>{}</i></span>',
        suit,
        code,
        gettext("%(rank)s of %(suit)s")
        % {"rank": RANK_WORDS.get(rank, rank), "suit": SUIT_NAMES[suit]},
        RANK_NAMES.get(rank, rank),
        SUITS[suit],
    )


@register.filter
def wager_name(key: str) -> str:
    return str(WAGER_NAMES.get(key, key))


@register.filter
def hand_name(hand: dict | None) -> str:
    """The engine's hand ({"category", "cards"}) named in the active language."""
    return hand_names.hand_name(hand)


@register.filter
def category_name(category: str | None) -> str:
    """A hand category ("full house") in the active language."""
    return hand_names.category_name(category)


@register.filter
def capitalised(text: str | None) -> str:
    return (text or "")[:1].upper() + (text or "")[1:]


@register.filter
def cents_to_dollars(cents) -> str:
    """500 -> "5.00", for number inputs in dollars."""
    whole, part = divmod(int(cents or 0), 100)
    return f"{whole}.{part:02d}"
