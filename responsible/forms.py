import copy
from decimal import Decimal

from django import forms
from django.utils.translation import gettext_lazy as _

from responsible.models import DepositLimit, Exclusion
from responsible.services import REALITY_CHECK_MINUTES, SESSION_LIMIT_MINUTES, TIME_OUT_DAYS


class DepositLimitForm(forms.Form):
    """One period's cap in dollars; empty removes it (which, like raising, waits 24 hours)."""

    period = forms.ChoiceField(label=_("Period"), choices=DepositLimit.Period.choices)
    amount = forms.DecimalField(
        label=_("Limit ($)"),
        required=False,
        min_value=Decimal("0.01"),
        max_digits=12,
        decimal_places=2,
        widget=forms.NumberInput(attrs={"step": "0.01", "min": "0.01"}),
        help_text=_("Empty: no limit."),
    )

    def cents(self) -> int | None:
        amount = self.cleaned_data["amount"]
        return None if amount is None else int(amount * 100)


class LossLimitForm(DepositLimitForm):
    """The same as a deposit limit's form, for the loss limit (its own ids on the page)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("auto_id", "loss_%s")
        super().__init__(*args, **kwargs)


class SessionLimitForm(forms.Form):
    """The longest play session in minutes; empty removes it (which, like raising, waits)."""

    minutes = forms.IntegerField(
        label=_("Session limit (minutes)"),
        required=False,
        min_value=SESSION_LIMIT_MINUTES[0],
        max_value=SESSION_LIMIT_MINUTES[1],
        help_text=_("Empty: no limit."),
    )

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("auto_id", "session_%s")
        super().__init__(*args, **kwargs)


class TimeOutForm(forms.Form):
    days = forms.IntegerField(
        label=_("Time-out (days)"), min_value=TIME_OUT_DAYS[0], max_value=TIME_OUT_DAYS[1]
    )
    confirm = forms.BooleanField(
        label=_("I understand it cannot be undone or shortened."), required=True
    )
    kind = Exclusion.Kind.TIME_OUT


class SelfExclusionForm(forms.Form):
    length = forms.ChoiceField(
        label=_("Self-exclusion"),
        choices=[("6m", _("6 months")), ("1y", _("1 year")), ("5y", _("5 years"))],
    )
    confirm = forms.BooleanField(
        label=_("I understand it cannot be undone or shortened."), required=True
    )
    kind = Exclusion.Kind.SELF_EXCLUSION


class RealityCheckForm(forms.Form):
    minutes = forms.IntegerField(
        label=_("Reality check every (minutes)"),
        required=False,
        min_value=REALITY_CHECK_MINUTES[0],
        max_value=REALITY_CHECK_MINUTES[1],
        help_text=_("Empty: no reminder."),
    )


class TermsAcceptForm(forms.Form):
    """The acceptance of the documents shown: their ids travel with the form, so a version
    published meanwhile is refused rather than accepted unread. Sign-up adds the same fields."""

    accept_terms = forms.BooleanField(
        label=_("I accept the terms and conditions and the fair-play policy"),
        help_text=_(
            'Read them: <a href="/responsible/terms/">terms</a>, '
            '<a href="/responsible/fair-play/">fair-play policy</a>.'
        ),
    )
    terms_versions = forms.CharField(widget=forms.HiddenInput)

    def clean_terms_versions(self) -> list[int]:
        try:
            return [int(part) for part in self.cleaned_data["terms_versions"].split(",") if part]
        except ValueError:
            raise forms.ValidationError(_("The documents shown are not known.")) from None


def terms_fields_add(form: forms.Form, versions) -> None:
    """Give `form` the acceptance fields for `versions` (none: nothing to accept)."""
    if not versions:
        return
    for name, field in TermsAcceptForm.base_fields.items():
        form.fields[name] = copy.deepcopy(field)
    form.fields["terms_versions"].initial = ",".join(str(version.pk) for version in versions)
