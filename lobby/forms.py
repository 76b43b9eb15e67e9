from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from accounts.models import Profile, display_name_validator
from lobby.suspension import SUSPENDED_LOGIN, account_suspended_for
from responsible.forms import TermsAcceptForm, terms_fields_add
from responsible.rules import terms_current


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

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # The documents in force, accepted with the account (none published: nothing asked).
        terms_fields_add(self, terms_current())

    clean_terms_versions = TermsAcceptForm.clean_terms_versions

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


class LoginForm(AuthenticationForm):
    """Django's login form, but a suspended player with the right password is told the account
    is suspended rather than that the password is wrong."""

    def clean(self):
        try:
            return super().clean()
        except ValidationError:
            data = self.cleaned_data
            if account_suspended_for(username=data.get("username"), password=data.get("password")):
                raise ValidationError(SUSPENDED_LOGIN, code="suspended") from None
            raise
