"""Cards and wager names for the banked game's pages, drawn like the table page's."""

from django import template
from django.utils.html import format_html

register = template.Library()

RANK_NAMES = {"T": "10"}
SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
SUIT_NAMES = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
RANK_WORDS = {
    "A": "Ace", "K": "King", "Q": "Queen", "J": "Jack", "T": "10",
}  # fmt: skip
WAGER_NAMES = {
    "ante": "Ante",
    "bet": "Bet",
    "hole_card_bonus": "Hole Card Bonus",
    "final_hand_bonus": "Final Hand Bonus",
}


@register.simple_tag
def card(code: str) -> str:
    """One face-up card: rank and suit in the four-colour deck of static/css/table.css."""
    rank, suit = code[0], code[1]
    return format_html(
        '<span class="card suit-{}" data-card="{}" aria-label="{} of {}"><b>{}</b><i>{}</i></span>',
        suit,
        code,
        RANK_WORDS.get(rank, rank),
        SUIT_NAMES[suit],
        RANK_NAMES.get(rank, rank),
        SUITS[suit],
    )


@register.filter
def wager_name(key: str) -> str:
    return WAGER_NAMES.get(key, key)


@register.filter
def capitalised(text: str | None) -> str:
    return (text or "")[:1].upper() + (text or "")[1:]


@register.filter
def cents_to_dollars(cents) -> str:
    """500 -> "5.00", for number inputs in dollars."""
    whole, part = divmod(int(cents or 0), 100)
    return f"{whole}.{part:02d}"
