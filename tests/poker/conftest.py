"""Fixtures the poker tests share (the room's own are in tests/conftest.py)."""

import pytest

from tests.factories import make_staff


@pytest.fixture
def manager():
    """A member of the table managers, who may remove, bar and offer seats."""
    return make_staff("tm", "table managers")
