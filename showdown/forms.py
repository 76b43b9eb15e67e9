"""The play page's forms: wagers in dollars and cents (the page's unit), a decision, and the
rendered form's idempotency key, so a double-click or a resubmission does nothing twice."""

from __future__ import annotations

from decimal import Decimal

from django import forms

from config.errors import Refused
from config.inputs import parse_cents, parse_idempotency_key
from showdown.models import ShowdownRound


def _cents(value: Decimal | None, *, field: str, minimum: int) -> int:
    if value is None:
        return 0
    try:
        return parse_cents(int(value * 100), field=field, minimum=minimum)
    except Refused as error:
        raise forms.ValidationError(error.message, code=error.code) from error


class _Keyed(forms.Form):
    idempotency_key = forms.CharField(max_length=100, widget=forms.HiddenInput)

    def clean_idempotency_key(self) -> str:
        try:
            return parse_idempotency_key(self.cleaned_data["idempotency_key"])
        except Refused as error:
            raise forms.ValidationError(error.message, code=error.code) from error


def _dollars_field(label: str, *, required: bool) -> forms.DecimalField:
    return forms.DecimalField(
        label=label,
        required=required,
        min_value=Decimal("0"),
        max_digits=12,
        decimal_places=2,
        widget=forms.NumberInput(attrs={"step": "0.01", "min": "0", "inputmode": "decimal"}),
    )


class DealForm(_Keyed):
    """The wagers of a round: an Ante, and side bets left empty or 0 for none."""

    ante = _dollars_field("Ante ($)", required=True)
    hole_card_bonus = _dollars_field("Hole Card Bonus ($)", required=False)
    final_hand_bonus = _dollars_field("Final Hand Bonus ($)", required=False)

    def clean_ante(self) -> int:
        return _cents(self.cleaned_data["ante"], field="ante", minimum=1)

    def clean_hole_card_bonus(self) -> int:
        return _cents(self.cleaned_data["hole_card_bonus"], field="hole card bonus", minimum=0)

    def clean_final_hand_bonus(self) -> int:
        return _cents(self.cleaned_data["final_hand_bonus"], field="final hand bonus", minimum=0)


class DecideForm(_Keyed):
    decision = forms.ChoiceField(choices=ShowdownRound.Decision.choices)
