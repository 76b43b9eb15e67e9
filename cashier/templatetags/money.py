from django import template
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


@register.filter
def signed_dollars(cents) -> str:
    """A result: +$12.50 for a win, -$3.00 for a loss, $0.00 for neither."""
    value = int(cents or 0)
    return ("+" if value > 0 else "-" if value < 0 else "") + _dollars(abs(value))
