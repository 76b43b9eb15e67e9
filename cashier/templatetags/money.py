from django import template

from cashier.services import dollars as _dollars

register = template.Library()


@register.filter
def dollars(cents) -> str:
    """123450 -> $1,234.50."""
    return _dollars(int(cents or 0))
