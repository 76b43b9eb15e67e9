"""The shared fixtures' own promises (tests/conftest.py)."""

import pytest
from django.contrib.auth.hashers import check_password, make_password
from django.db import transaction

from showdown.models import Paytable, ShowdownTable
from tests.conftest import migration_data_reload


@pytest.mark.django_db(transaction=True)
def test_the_migration_data_is_loaded_again_on_a_connection_of_its_own():
    """What a flush emptied comes back committed, whatever this thread's connection is doing
    (here: a transaction that is rolled back)."""
    ShowdownTable.objects.all().delete()
    Paytable.objects.all().delete()
    with transaction.atomic():
        migration_data_reload()
        transaction.set_rollback(True)
    assert Paytable.objects.exists() and ShowdownTable.objects.exists()


def test_passwords_hash_quickly_in_the_format_a_server_verifies():
    encoded = make_password("a-long-passphrase-42")
    algorithm, iterations, _salt, _hash = encoded.split("$")
    assert (algorithm, iterations) == ("pbkdf2_sha256", "1")
    assert check_password("a-long-passphrase-42", encoded)
