from django import forms
from django.utils.translation import gettext_lazy as _

from verification.models import Document


class DocumentForm(forms.Form):
    """One document: which kind, and the file (its size and type are the service's checks)."""

    kind = forms.ChoiceField(label=_("Document"), choices=Document.Kind.choices)
    file = forms.FileField(
        label=_("File (PDF, PNG or JPEG)"),
        widget=forms.ClearableFileInput(attrs={"accept": ".pdf,.png,.jpg,.jpeg"}),
    )


class BirthDateForm(forms.Form):
    date_of_birth = forms.DateField(
        label=_("Date of birth"), widget=forms.DateInput(attrs={"type": "date"})
    )
