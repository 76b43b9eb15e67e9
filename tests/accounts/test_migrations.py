"""Profiles and e-mail proofs moved from lobby to accounts without losing a row: accounts 0001
and lobby 0004 change Django's state only, keep the tables and relabel the content types (so
the staff roles keep their permission to view profiles)."""

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("lobby", "0003_profile_language"), ("accounts", None)]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    return executor.migrate(targets).apps


def _leaf():
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def test_profiles_made_before_the_move_are_the_same_rows_after_it():
    try:
        old = _migrate(BEFORE)
        User = old.get_model("auth", "User")
        user = User.objects.create(username="olga", email="olga@example.test")
        profiles = old.get_model("lobby", "Profile").objects
        profiles.create(user=user, display_name="Olga", language="fr")
        old.get_model("lobby", "EmailVerification").objects.create(
            user=user, email=user.email, verified_at="2026-11-01T10:00:00Z"
        )
        ContentType = old.get_model("contenttypes", "ContentType")
        ContentType.objects.get_or_create(app_label="lobby", model="profile")
        new = _migrate(_leaf())
    finally:
        _migrate(_leaf())
    profile = new.get_model("accounts", "Profile").objects.get(user__username="olga")
    assert (profile.display_name, profile.language) == ("Olga", "fr")
    proof = new.get_model("accounts", "EmailVerification").objects.get(user__username="olga")
    assert proof.email == "olga@example.test"
    labels = set(
        new.get_model("contenttypes", "ContentType")
        .objects.filter(model="profile")
        .values_list("app_label", flat=True)
    )
    assert labels == {"accounts"}
    with connection.cursor() as cursor:
        cursor.execute("SELECT display_name FROM lobby_profile")
        assert [row[0] for row in cursor.fetchall()] == ["Olga"]


def test_the_staff_roles_read_profiles_under_their_new_label():
    from django.contrib.auth.models import Group

    from tests.factories import make_staff

    Group.objects.filter(name="support").delete()  # make_staff makes the roles again
    make_staff("sam", "support")
    support = Group.objects.get(name="support")
    assert support.permissions.filter(
        content_type__app_label="accounts", codename="view_profile"
    ).exists()


def test_the_models_match_the_migrations():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)
