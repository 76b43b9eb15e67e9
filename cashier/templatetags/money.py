from django import template

from config.money import dollars as _dollars

register = template.Library()


@register.filter
def dollars(cents) -> str:
    """123450 -> $1,234.50 (or 1 234,50 $ in French: the active language's way)."""
    return _dollars(int(cents or 0))


@register.filter
def signed_dollars(cents) -> str:
    """A result: +$12.50 for a win, -$3.00 for a loss, $0.00 for neither."""
    value = int(cents or 0)
    return ("+" if value > 0 else "-" if value < 0 else "") + _dollars(abs(value))
