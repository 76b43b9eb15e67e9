"""The shared fixtures' own promises (tests/conftest.py)."""

import threading
import time

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


@pytest.mark.django_db(transaction=True)
def test_a_flush_empties_even_the_immutable_tables_and_leaves_what_the_migrations_left():
    """The flush by DELETE (tests/conftest.py) empties the ledger and the audit log, whose
    triggers refuse a DELETE, and in the same transaction puts back every row the data
    migrations left (the staff roles with their permissions, the paytables), as the migrations
    left them and with no audit record of it, as the migrations wrote none. A flush that resets
    sequences is a TRUNCATE: the reload then makes the same roles again."""
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    from audit.models import AuditRecord
    from cashier.models import Entry
    from tests.conftest import _role_names
    from tests.factories import make_funded_player, make_staff

    def role_permissions() -> dict:
        return {
            group.name: sorted(group.permissions.values_list("content_type__app_label", "codename"))
            for group in Group.objects.filter(name__in=_role_names())
        }

    def migrated_rows() -> dict:
        return {
            "groups": sorted(Group.objects.values_list("pk", "name")),
            "paytables": sorted(Paytable.objects.values_list("pk", "name", "edge")),
            "tables": sorted(ShowdownTable.objects.values_list("pk", "name")),
        }

    roles, migrated = role_permissions(), migrated_rows()
    assert len(roles) == len(_role_names()) and all(migrated.values())
    for reset_sequences in (False, True):
        make_funded_player("flushed")
        make_staff("sue", "support")
        Paytable.objects.filter(pk=migrated["paytables"][0][0]).update(name="changed")
        assert Entry.objects.exists() and AuditRecord.objects.exists()

        # as a transactional test's teardown calls it (Django's TransactionTestCase), then as
        # one that resets sequences does (a TRUNCATE, after which post_migrate makes new
        # permissions)
        call_command("flush", verbosity=0, interactive=False, reset_sequences=reset_sequences)
        assert not Entry.objects.exists() and not AuditRecord.objects.exists()
        if reset_sequences:
            assert not Group.objects.exists()
            migration_data_reload()
        else:
            assert migrated_rows() == migrated, "the very rows the migrations left"
        assert role_permissions() == roles
        assert not AuditRecord.objects.exists()
        assert Paytable.objects.exists() and ShowdownTable.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_flush_that_deadlocks_with_a_server_transaction_runs_again_and_empties_the_tables():
    """A server's transaction still running when a test ends holds a table the flush must lock
    and then asks for one the flush has locked: PostgreSQL fails one of the two. Here it is
    always the flush (the other session waits longer before it checks for a deadlock); the
    flush runs again once the other has committed."""
    import psycopg
    from django.contrib.auth import get_user_model
    from django.core.management.color import no_style
    from django.db import connection

    from tests.factories import make_player

    make_player("carol")
    server = psycopg.connect(**connection.get_connection_params())
    server.execute("SET deadlock_timeout = '30s'")
    server.execute("LOCK TABLE poker_table IN ROW EXCLUSIVE MODE")
    outcome = {}

    def server_goes_on():
        """Once the flush waits for poker_table, ask for auth_user, which the flush holds."""
        try:
            while not server.execute(
                "SELECT count(*) FROM pg_locks WHERE NOT granted"
                " AND relation = 'poker_table'::regclass"
            ).fetchone()[0]:
                time.sleep(0.02)
            outcome["users"] = server.execute("SELECT count(*) FROM auth_user").fetchone()[0]
            server.commit()
        except Exception as error:  # the test reports what the thread met
            outcome["error"] = error
        finally:
            server.close()

    thread = threading.Thread(target=server_goes_on)
    thread.start()
    tables = connection.introspection.django_table_names(only_existing=True)
    connection.ops.execute_sql_flush(connection.ops.sql_flush(no_style(), tables))
    thread.join(timeout=60)
    assert outcome == {"users": 1}
    assert not get_user_model().objects.exists()


def test_no_test_module_imports_another():
    """What tests share lives in shared modules (factories, fixtures, helpers beside the
    tests), never in a test module: importing one couples the two files' fates and hides
    what is shared."""
    import ast
    from pathlib import Path

    importing = []
    for path in Path(__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            for name in names:
                if name.startswith("tests.") and name.rsplit(".", 1)[-1].startswith("test_"):
                    importing.append(f"{path.relative_to(Path(__file__).parent)}: {name}")
    assert not importing, importing
