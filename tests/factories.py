"""Shared builders for test data; tests call these instead of repeating model set-up."""

from django.contrib.auth import get_user_model

DEFAULT_PASSWORD = "correct-horse-battery-staple-42"


def make_player(username: str = "alice", *, password: str = DEFAULT_PASSWORD, **fields):
    """A registered player (a plain Django user; the profile comes with it)."""
    fields.setdefault("email", f"{username}@example.test")
    return get_user_model().objects.create_user(username=username, password=password, **fields)
