"""The room's own database role (no superuser, grants from `db_grant_app_role`), and
talking to the test database as it."""

import io
from contextlib import contextmanager

import pytest
from django.core.management import call_command
from django.db import connection


@contextmanager
def connected_as(role: str):
    """Talk to the test database as `role` on Django's own connection, then as its owner."""
    owner = connection.settings_dict["USER"]
    _disconnect()
    connection.settings_dict["USER"] = role
    try:
        yield
    finally:
        _disconnect()
        connection.settings_dict["USER"] = owner


@pytest.fixture(scope="module")
def app_role(django_db_setup, django_db_blocker):
    """A role made for this test database by the grant command (roles are cluster-wide, so
    the name carries the database's), dropped after this module's tests."""
    with django_db_blocker.unblock():
        role = f"{connection.settings_dict['NAME']}_app"[:63]
        _drop_role(role)
        call_command("db_grant_app_role", role=role, create=True, stdout=io.StringIO())
    yield role
    with django_db_blocker.unblock():
        _drop_role(role)


def _disconnect() -> None:
    """Close the connection and any pool of them, so the next query logs in afresh."""
    connection.close()
    connection.close_pool()


def _drop_role(role: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
        if cursor.fetchone():
            cursor.execute(f'DROP OWNED BY "{role}"')
            cursor.execute(f'DROP ROLE "{role}"')
