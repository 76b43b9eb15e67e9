"""Account services: every write to players' accounts goes through here."""

import re

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from lobby.models import Profile, WorkerHeartbeat


class DisplayNameTaken(ValueError):
    pass


@transaction.atomic
def account_register(
    *, username: str, email: str, password: str, display_name: str | None = None
) -> AbstractBaseUser:
    """Create a player and their profile together, so no player exists without one."""
    user = get_user_model().objects.create_user(username=username, email=email, password=password)
    profile_set_display_name(user=user, display_name=display_name or username)
    return user


def profile_set_display_name(*, user: AbstractBaseUser, display_name: str) -> Profile:
    try:
        with transaction.atomic():
            profile, _ = Profile.objects.update_or_create(
                user=user, defaults={"display_name": display_name}
            )
    except IntegrityError as exc:
        raise DisplayNameTaken(f"The display name {display_name!r} is taken.") from exc
    return profile


def profile_ensure(*, user: AbstractBaseUser) -> Profile:
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


def worker_heartbeat_record(*, hostname: str) -> WorkerHeartbeat:
    heartbeat, _ = WorkerHeartbeat.objects.update_or_create(
        hostname=hostname, defaults={"beat_at": timezone.now()}
    )
    return heartbeat
