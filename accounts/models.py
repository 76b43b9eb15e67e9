"""What the room knows of a player beyond Django's `User`: the name shown at tables, the chosen
language, whether the tables play sounds for them, and the proof of their e-mail address.

Both models moved here from `lobby` (lobby 0004, accounts 0001) and keep their tables.
"""

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

display_name_validator = RegexValidator(
    r"^[A-Za-z0-9][A-Za-z0-9 _.-]{1,18}[A-Za-z0-9]$",
    _(
        "3 to 20 letters, digits, spaces, dots, dashes or underscores, "
        "starting and ending with a letter or digit."
    ),
)


class Profile(models.Model):
    """What other players see of a player at the tables."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    display_name = models.CharField(max_length=20, unique=True, validators=[display_name_validator])
    created_at = models.DateTimeField(auto_now_add=True)
    # The last time the player changed the name chosen at sign-up (at most once every 30 days).
    display_name_changed_at = models.DateTimeField(null=True, blank=True)
    # The language the player chose with the selector ("" until they choose): it follows them
    # to every browser they log in from (config/i18n.py).
    language = models.CharField(max_length=8, blank=True, default="")
    # The tables' sound switch (static/js/sounds.js): kept here, not in one browser, so a
    # player who muted the tables hears nothing on their phone either.
    sound_muted = models.BooleanField(default=False)

    class Meta:
        db_table = "lobby_profile"

    def __str__(self) -> str:
        return self.display_name


class EmailVerification(models.Model):
    """That a player proved they read mail at `email` (a signed link), before their first deposit.

    Kept apart from `Profile` because players made outside sign-up get their profile lazily;
    a change of address on the account makes the proof stale (the address must match).
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="email_verification"
    )
    email = models.EmailField()
    verified_at = models.DateTimeField()

    class Meta:
        db_table = "lobby_emailverification"

    def __str__(self) -> str:
        return f"{self.email} verified {self.verified_at:%Y-%m-%d}"
