"""The engine's refusals of an action, for players: by their code, in the player's language.

The engine (poker/engine, no Django) explains an illegal action in English ("the least you may
raise to is 400"); English keeps that precise reason, and the other languages get the code's
message from here (the code itself is the same for programs in every language).
"""

from __future__ import annotations

from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from poker.engine.hand import IllegalAction

ACTION_MESSAGES = {
    "hand_over": _("The hand is over."),
    "nobody_to_act": _("Nobody is to act."),
    "not_your_turn": _("It is not your turn."),
    "unknown_action": _("The action must be fold, check, call, bet, raise or all-in."),
    "bad_amount": _("A bet needs a whole number of cents to bet to."),
    "wrong_action": _("There is a bet to raise: raise instead of betting."),
    "cannot_raise": _("No bet or raise is open to you now."),
    "amount_too_small": _("That is less than the least you may bet or raise to."),
    "amount_too_large": _("That is more than the most you may bet or raise to."),
    "unexpected_amount": _("This action takes no amount."),
    "cannot_check": _("There is a bet to call."),
    "cannot_call": _("There is nothing to call: check instead."),
    "cannot_all_in": _("Going all-in is not a legal bet here."),
    "hand_running": _("Cards are shown by choice once the hand is over."),
    "not_in_hand": _("You were not dealt into that hand."),
    "already_shown": _("Your cards are face up already."),
    "not_deciding_runs": _("Nobody is being asked to run the board twice now."),
    "not_asked": _("You are not asked to run the board twice."),
    "already_answered": _("You have already answered."),
}


# Why a hand was cancelled, by the code its incident carries: the stored reason is English.
CANCEL_MESSAGES = {
    "stuck": _("The hand stopped moving, so it was cancelled."),
    "state_refused": _("The hand's saved state could not be read back, so it was cancelled."),
    "staff": _("The room's staff cancelled this hand; every bet is returned."),
}


def cancel_message(*, code: str | None, reason: str) -> str:
    """The reason a hand was cancelled, in the active language when its code is known."""
    message = CANCEL_MESSAGES.get(code or "")
    return str(message) if message is not None else reason


def action_refusal_message(error: IllegalAction) -> str:
    """The engine's reason in English, else the code's message in the active language."""
    message = ACTION_MESSAGES.get(error.code)
    if message is None or get_language() in (None, "en"):
        return error.reason[:1].upper() + error.reason[1:] + "."
    return str(message)
