"""What must hold before money moves for a player, as the apps above the cashier declare it.

Responsible gaming registers its checks here (responsible/apps.py): exclusions, the e-mail
proof and deposit caps for a deposit, an open account for a withdrawal, no exclusion for a
buy-in or top-up. The cashier runs them inside its own transaction, after it locked the wallet
and before any posting (RULES.md, responsible gaming), without importing the app that makes
the rules. A check refuses by raising the `error` it is given (the cashier's `CashierError`).
"""

from __future__ import annotations

from collections.abc import Callable

DEPOSIT, WITHDRAWAL, PLAY = "deposit", "withdrawal", "play"

_checks: dict[str, list[Callable[..., None]]] = {DEPOSIT: [], WITHDRAWAL: [], PLAY: []}


def money_check_register(*, kind: str, check: Callable[..., None]) -> None:
    """Run `check` before every money movement of `kind`; registering it again changes nothing."""
    if check not in _checks[kind]:
        _checks[kind].append(check)


def money_checks_run(*, kind: str, **facts) -> None:
    """Every check registered for `kind`, in registration order, with the movement's facts
    (`player`, `error`, and `amount` for a deposit or `now` for play)."""
    for check in _checks[kind]:
        check(**facts)
