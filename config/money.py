"""Money as players read it: integer cents written the active language's way.

A leaf (Django's formats and translation only), so `config.inputs`, the `|dollars` filter,
the admin and every service's messages can use it without importing anything of the room.
"""

from __future__ import annotations

from decimal import Decimal

from django.utils import formats
from django.utils.translation import gettext


def dollars(cents: int, *, short: bool = False) -> str:
    """Integer cents as dollars in the active language: $1,234.50, 1 234,50 $, $1,234.50.
    `short` leaves out the cents of a whole amount, as stakes are written ($1/$2, 1 $/2 $)."""
    sign = "-" if cents < 0 else ""
    places = 0 if short and cents % 100 == 0 else 2
    amount = formats.number_format(
        Decimal(abs(cents)) / 100, places, use_l10n=True, force_grouping=True
    )
    # Translators: an amount of US dollars; %(amount)s is the number, already localized.
    return sign + gettext("$%(amount)s") % {"amount": amount}
