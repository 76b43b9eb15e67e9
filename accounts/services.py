"""Account services: every write to players' profiles and e-mail proof goes through here."""

import re
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core import signing
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from accounts.models import EmailVerification, Profile

# Other players recognise someone by the name at the table: it may change, but not often.
DISPLAY_NAME_CHANGE_EVERY = timedelta(days=30)
# The app's old name: links mailed before accounts left the lobby still open.
EMAIL_VERIFICATION_SALT = "lobby.email-verification"
EMAIL_VERIFICATION_MAX_AGE = timedelta(days=3)


class DisplayNameTaken(ValueError):
    pass


class DisplayNameTooSoon(ValueError):
    """The name was changed less than 30 days ago."""


class EmailVerificationInvalid(ValueError):
    """A verification link that is forged, expired, or for an address the account no longer has."""


@transaction.atomic
def account_register(
    *,
    username: str,
    email: str,
    password: str,
    display_name: str | None = None,
    email_verified: bool = False,
) -> User:
    """Create a player and their profile together, so no player exists without one.

    `email_verified` is for demo data only: a real sign-up proves the address by a link.
    """
    user = get_user_model().objects.create_user(username=username, email=email, password=password)
    profile_set_display_name(user=user, display_name=display_name or username)
    if email_verified:
        email_mark_verified(user=user)
    return user


def profile_set_display_name(
    *, user: User, display_name: str, now: datetime | None = None
) -> Profile:
    """Name a new profile, or rename one: a rename at most once every 30 days."""
    now = now or timezone.now()
    try:
        with transaction.atomic():
            profile = Profile.objects.select_for_update().filter(user=user).first()
            if profile is None:
                return Profile.objects.create(user=user, display_name=display_name)
            if profile.display_name == display_name:
                return profile
            changed_at = profile.display_name_changed_at
            next_change = display_name_next_change(profile=profile)
            if changed_at is not None and next_change is not None and next_change > now:
                raise DisplayNameTooSoon(
                    _(
                        "You changed your display name on %(changed)s; you can change it again "
                        "from %(next)s UTC."
                    )
                    % {
                        "changed": formats.date_format(changed_at, "SHORT_DATE_FORMAT"),
                        "next": formats.date_format(next_change, "SHORT_DATETIME_FORMAT"),
                    }
                )
            profile.display_name = display_name
            profile.display_name_changed_at = now
            profile.save(update_fields=["display_name", "display_name_changed_at"])
    except IntegrityError as exc:
        raise DisplayNameTaken(
            _("The display name %(name)s is taken.") % {"name": repr(display_name)}
        ) from exc
    return profile


def display_name_next_change(*, profile: Profile) -> datetime | None:
    """When the player may rename again; None when they may now (never renamed)."""
    if profile.display_name_changed_at is None:
        return None
    return profile.display_name_changed_at + DISPLAY_NAME_CHANGE_EVERY


def email_is_verified(*, user: User) -> bool:
    """The player proved the address the account has now."""
    return EmailVerification.objects.filter(user=user, email__iexact=user.email).exists()


def email_mark_verified(*, user: User) -> EmailVerification:
    verification, _ = EmailVerification.objects.update_or_create(
        user=user, defaults={"email": user.email, "verified_at": timezone.now()}
    )
    return verification


def email_verification_token(*, user: User) -> str:
    """A signed, timestamped token naming the player and the address; no table needed."""
    return signing.dumps({"u": user.pk, "e": user.email.lower()}, salt=EMAIL_VERIFICATION_SALT)


def email_verification_send(*, user: User, base_url: str) -> None:
    """Mail the player a link that proves they read mail at their address."""
    token = email_verification_token(user=user)
    link = base_url.rstrip("/") + reverse("lobby:email_verify", kwargs={"token": token})
    send_mail(
        subject=_("Omaha Room: confirm your e-mail address"),
        message=(
            _("Open this link to confirm your address (it works for %(days)d days):")
            % {"days": EMAIL_VERIFICATION_MAX_AGE.days}
            + f"\n\n{link}\n\n"
            + _(
                "You need a confirmed address before your first deposit. If you did not sign "
                "up, ignore this message."
            )
        ),
        from_email=settings.DEFAULT_FROM_EMAIL,
        recipient_list=[user.email],
    )


def email_verify(*, token: str) -> User:
    """Check a verification link's token and mark the address verified."""
    try:
        data = signing.loads(
            token,
            salt=EMAIL_VERIFICATION_SALT,
            max_age=EMAIL_VERIFICATION_MAX_AGE,
        )
    except signing.SignatureExpired as exc:
        raise EmailVerificationInvalid(_("This link has expired; ask for a new one.")) from exc
    except signing.BadSignature as exc:
        raise EmailVerificationInvalid(_("This link is not valid.")) from exc
    user = get_user_model().objects.filter(pk=data.get("u")).first()
    if user is None or user.email.lower() != data.get("e"):
        raise EmailVerificationInvalid(_("This link is for an address the account no longer has."))
    email_mark_verified(user=user)
    return user


def profile_ensure(*, user: User) -> Profile:
    """The player's profile, created with a free name derived from the username if missing.

    Users made outside sign-up (createsuperuser, the admin, tests) get one the first time
    anything asks.
    """
    profile = Profile.objects.filter(user=user).first()
    if profile is not None:
        return profile
    base = re.sub(r"[^A-Za-z0-9_.-]", "", user.get_username())[:17].strip("_.-") or "player"
    base = base if len(base) >= 3 else f"{base}-player"
    candidate, n = base, 1
    while Profile.objects.filter(display_name=candidate).exists():
        n += 1
        candidate = f"{base}-{n}"
    return profile_set_display_name(user=user, display_name=candidate)


def profile_set_sound_muted(*, user: User, muted: bool) -> Profile:
    """Keep the tables' sound switch as the player left it, for every device they play on."""
    profile = profile_ensure(user=user)
    if profile.sound_muted != muted:
        profile.sound_muted = muted
        profile.save(update_fields=["sound_muted"])
    return profile


def profile_set_language(*, user: User, language: str) -> Profile:
    """Keep the player's chosen language (one of settings.LANGUAGES) for their next visits."""
    if language not in dict(settings.LANGUAGES):
        raise ValueError(f"Not a language of the room: {language!r}.")
    profile = profile_ensure(user=user)
    if profile.language != language:
        profile.language = language
        profile.save(update_fields=["language"])
    return profile
