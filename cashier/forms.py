from decimal import Decimal

from django import forms
from django.utils.translation import gettext_lazy as _

from config.errors import Refused
from config.inputs import parse_cents, parse_idempotency_key


class MoveForm(forms.Form):
    """Deposit or withdraw, in dollars and cents; the key makes a resubmission harmless.

    Dollars are the page's unit; the cents they make are checked by the room's one amount rule
    (config.inputs), so the page refuses what the API and the socket refuse, with their words.
    """

    amount = forms.DecimalField(
        label=_("Amount ($)"),
        min_value=Decimal("0.01"),
        max_digits=12,
        decimal_places=2,
        widget=forms.NumberInput(attrs={"step": "0.01", "min": "0.01"}),
    )
    idempotency_key = forms.CharField(max_length=100, widget=forms.HiddenInput)

    def clean_amount(self) -> int:
        try:
            return parse_cents(int(self.cleaned_data["amount"] * 100))
        except Refused as error:
            raise forms.ValidationError(error.message, code=error.code) from error

    def clean_idempotency_key(self) -> str:
        try:
            return parse_idempotency_key(self.cleaned_data["idempotency_key"])
        except Refused as error:
            raise forms.ValidationError(error.message, code=error.code) from error

    def cents(self) -> int:
        return self.cleaned_data["amount"]
