"""What a table service checks of its inputs before it changes anything: whole cents, flags,
ids; a refusal is a `TableError` (nothing written)."""

from __future__ import annotations

from typing import Any, TypeGuard

from django.utils.translation import gettext as _

from config.errors import Refused
from config.inputs import parse_cents


class TableError(Refused):
    """A refused request at a table: `code` for programs, `message` for people. Nothing changed."""


def is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def check_amount(amount: Any, what: str) -> int:
    """Whole cents, 1 to 10^11, by the room's one rule (config.inputs): `bad_amount` else."""
    return parse_cents(amount, field=what, error=TableError)


def check_bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise TableError(
            "bad_field",
            _("%(what)s must be true or false, not %(value)s.")
            % {"what": what, "value": repr(value)},
        )
    return value
