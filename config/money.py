"""Money as players read it: integer cents written the active language's way.

A leaf (Django's formats and translation only), so `config.inputs`, the `|dollars` filter,
the admin and every service's messages can use it without importing anything of the room.
"""

from __future__ import annotations

from decimal import Decimal

from django.utils import formats
from django.utils.translation import gettext


def dollars(cents: int) -> str:
    """Integer cents as dollars in the active language: $1,234.50, 1 234,50 $, $1,234.50."""
    sign = "-" if cents < 0 else ""
    amount = formats.number_format(Decimal(abs(cents)) / 100, 2, use_l10n=True, force_grouping=True)
    # Translators: an amount of US dollars; %(amount)s is the number, already localized.
    return sign + gettext("$%(amount)s") % {"amount": amount}
