"""The filters of "My hands" (page and API): bad values are refused with a reason, never
ignored silently."""

from django import forms
from django.utils.translation import gettext_lazy as _

from poker.models import Table


class HandFilterForm(forms.Form):
    table = forms.IntegerField(required=False, min_value=1, label=_("Table"))
    game = forms.ChoiceField(
        required=False, choices=[("", _("Any game")), *Table.Game.choices], label=_("Game")
    )
    since = forms.DateField(
        required=False, label=_("From"), widget=forms.DateInput({"type": "date"})
    )
    until = forms.DateField(required=False, label=_("To"), widget=forms.DateInput({"type": "date"}))
    result = forms.ChoiceField(
        required=False,
        label=_("Result"),
        choices=[
            ("", _("Any result")),
            ("won", _("Won")),
            ("lost", _("Lost")),
            ("even", _("Broke even")),
            ("cancelled", _("Cancelled")),
        ],
    )

    position = forms.ChoiceField(
        required=False,
        label=_("Position"),
        choices=[
            ("", _("Any position")),
            ("BTN", _("Button")),
            ("SB", _("Small blind")),
            ("BB", _("Big blind")),
            ("UTG", _("Early (UTG)")),
            ("MP", _("Middle (MP)")),
            ("HJ", _("Hijack")),
            ("CO", _("Cutoff")),
        ],
    )

    def clean(self):
        cleaned = super().clean()
        since, until = cleaned.get("since"), cleaned.get("until")
        if since and until and since > until:
            raise forms.ValidationError(_("The first day comes after the last."), code="bad_range")
        return cleaned

    def filters(self) -> dict:
        """The selector's keyword arguments (call after is_valid())."""
        data = self.cleaned_data
        return {
            "table_id": data.get("table"),
            "game": data.get("game") or None,
            "since": data.get("since"),
            "until": data.get("until"),
            "result": data.get("result") or None,
            "position": data.get("position") or None,
        }
