"""Fixtures the poker tests share (the room's own are in tests/conftest.py)."""

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from tests.factories import make_player, make_staff


@pytest.fixture
def manager():
    """A member of the table managers, who may remove, bar and offer seats."""
    return make_staff("tm", "table managers")


@pytest.fixture(params=["superuser", "viewer"])
def staff(request) -> Client:
    """A superuser, or staff allowed only to view the poker models: the same pages either way."""
    if request.param == "superuser":
        user = make_player("boss", is_staff=True, is_superuser=True)
    else:
        user = make_player("clerk", is_staff=True)
        user.user_permissions.set(
            Permission.objects.filter(content_type__app_label="poker", codename__startswith="view_")
        )
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client
