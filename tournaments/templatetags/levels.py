"""A Sit & Go's level as its pages name it: `{{ hand.tournament.level|roman }}` -> "III"."""

from django import template

from tournaments.selectors import roman as roman_numerals

register = template.Library()


@register.filter
def roman(number) -> str:
    """The level in Roman numerals, as PokerStars and the Sit & Go's page write it."""
    try:
        return roman_numerals(int(number))
    except (TypeError, ValueError):
        return ""
