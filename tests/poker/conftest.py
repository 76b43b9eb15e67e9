"""Fixtures the poker tests share (the room's own are in tests/conftest.py)."""

import pytest
from django.test import Client

from tests.factories import make_admin_client, make_staff


@pytest.fixture
def manager():
    """A member of the table managers, who may remove, bar and offer seats."""
    return make_staff("tm", "table managers")


@pytest.fixture(params=["superuser", "viewer"])
def staff(request) -> Client:
    """A superuser, or staff allowed only to view the poker models: the same pages either way."""
    return make_admin_client(request.param, "poker")
