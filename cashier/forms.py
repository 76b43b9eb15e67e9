from decimal import Decimal

from django import forms


class MoveForm(forms.Form):
    """Deposit or withdraw, in dollars and cents; the key makes a resubmission harmless."""

    amount = forms.DecimalField(
        label="Amount ($)",
        min_value=Decimal("0.01"),
        max_digits=12,
        decimal_places=2,
        widget=forms.NumberInput(attrs={"step": "0.01", "min": "0.01"}),
    )
    idempotency_key = forms.CharField(max_length=100, widget=forms.HiddenInput)

    def cents(self) -> int:
        return int(self.cleaned_data["amount"] * 100)
