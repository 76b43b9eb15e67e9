from django import template
from django.utils import formats
from django.utils.html import format_html

from config.money import dollars as _dollars

register = template.Library()


@register.filter
def dollars(cents) -> str:
    """123450 -> $1,234.50 (or 1 234,50 $ in French: the active language's way)."""
    return _dollars(int(cents or 0))


@register.filter
def dollars_unbroken(cents) -> str:
    """An amount inside a sentence, kept on one line (.money): a Japanese phone split
    "100.00ドル" between ド and ル."""
    return format_html('<span class="money">{}</span>', _dollars(int(cents or 0)))


def _signed(value: int, write) -> str:
    """+ for a win, - for a loss, no sign for neither, before the amount as `write` writes it."""
    return ("+" if value > 0 else "-" if value < 0 else "") + write(abs(value))


@register.filter
def signed_dollars(cents) -> str:
    """A result: +$12.50 for a win, -$3.00 for a loss, $0.00 for neither."""
    return _signed(int(cents or 0), _dollars)


@register.filter
def chips(count) -> str:
    """Tournament chips, a whole count with the language's thousands separator and no
    currency: 1500 -> 1,500 (1 500 in French). A Sit & Go's stacks and pots are not money."""
    return formats.number_format(int(count or 0), 0, use_l10n=True, force_grouping=True)


@register.filter
def signed_chips(count) -> str:
    """A tournament hand's result in chips: +1,500 won, -300 lost, 0 for neither."""
    return _signed(int(count or 0), chips)


@register.filter
def chips_unbroken(count) -> str:
    """Chips inside a sentence, kept on one line (.money), as `dollars_unbroken`."""
    return format_html('<span class="money">{}</span>', chips(count))


@register.filter
def amount(value, in_chips=False) -> str:
    """`dollars`, or `chips` for a Sit & Go's hand (`{{ pot.amount|amount:hand.tournament }}`),
    so a page shows either hand without writing each amount twice."""
    return chips(value) if in_chips else dollars(value)


@register.filter
def signed_amount(value, in_chips=False) -> str:
    """`signed_dollars`, or `signed_chips` for a Sit & Go's hand."""
    return signed_chips(value) if in_chips else signed_dollars(value)


@register.filter
def amount_unbroken(value, in_chips=False) -> str:
    """`dollars_unbroken`, or `chips_unbroken` for a Sit & Go's hand."""
    return chips_unbroken(value) if in_chips else dollars_unbroken(value)
