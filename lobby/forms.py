from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from lobby.models import Profile, display_name_validator


class SignUpForm(UserCreationForm):
    """Username, e-mail, password (checked by Django's validators) and the name shown at tables."""

    email = forms.EmailField(required=True)
    display_name = forms.CharField(
        max_length=20,
        validators=[display_name_validator],
        label=_("Display name"),
        help_text=_("Shown to other players at the tables."),
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def clean_email(self) -> str:
        email = self.cleaned_data["email"].strip().lower()
        if get_user_model().objects.filter(email__iexact=email).exists():
            raise forms.ValidationError(_("An account with this e-mail address already exists."))
        return email

    def clean_display_name(self) -> str:
        name = self.cleaned_data["display_name"].strip()
        if Profile.objects.filter(display_name__iexact=name).exists():
            raise forms.ValidationError(_("This display name is taken."))
        return name


class ProfileForm(forms.ModelForm):
    class Meta:
        model = Profile
        fields = ("display_name",)
        labels = {"display_name": _("Display name")}

    def clean_display_name(self) -> str:
        name = self.cleaned_data["display_name"].strip()
        taken = Profile.objects.filter(display_name__iexact=name).exclude(pk=self.instance.pk)
        if taken.exists():
            raise forms.ValidationError(_("This display name is taken."))
        return name
