"""Changes of staff power are recorded by the database (audit migration 0008), however they are
made: save(), a queryset update, raw SQL, the admin, group membership from either side; each
change exactly one `security.power_change` record, chained and checked like any other."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import connection, transaction

from audit.context import acting_on_powers
from audit.models import AuditRecord
from audit.services import content_hash
from audit.verify import audit_verify
from tests.factories import admin_user_change, make_player, make_staff

pytestmark = pytest.mark.django_db
User = get_user_model()
NONE = {"is_active": True, "is_staff": False, "is_superuser": False}


def power_records(user) -> list[AuditRecord]:
    """The user's power records, each checked to hash as audit_record would have hashed it
    (inside the test's transaction verify_audit counts them pending, unlinked)."""
    records = list(
        AuditRecord.objects.filter(
            action="security.power_change", subject_type="auth.user", subject_id=str(user.pk)
        ).order_by("id")
    )
    for record in records:
        assert content_hash(record) == record.content_hash, record.payload
    return records


def test_a_superuser_grant_by_queryset_update_is_recorded_with_no_actor_known():
    alice = make_player("alice")
    User.objects.filter(pk=alice.pk).update(is_superuser=True)
    [grant] = power_records(alice)
    assert (grant.payload["change"], grant.payload["before"], grant.payload["after"]) == (
        "flags",
        NONE,
        {**NONE, "is_superuser": True},
    )
    assert grant.actor is None and grant.actor_kind == AuditRecord.ActorKind.DATABASE
    assert grant.subject_label == "alice"
    assert grant.payload["db_role"] == connection.settings_dict["USER"]
    assert audit_verify().ok


def test_a_statement_that_changes_no_power_records_nothing():
    alice = make_player("alice", is_staff=True)
    start = AuditRecord.objects.count()
    User.objects.filter(pk=alice.pk).update(is_staff=True, first_name="Alice")
    alice.last_name = "Liddell"
    alice.save()
    assert AuditRecord.objects.count() == start


def test_suspending_and_deactivating_is_recorded_by_save_and_by_update():
    alice, bob = make_player("alice"), make_player("bob")
    alice.is_active = False
    alice.save()
    User.objects.filter(pk=bob.pk).update(is_active=False)
    [suspended] = power_records(alice)
    [deactivated] = power_records(bob)
    assert (
        suspended.payload["after"]
        == deactivated.payload["after"]
        == {
            **NONE,
            "is_active": False,
        }
    )
    assert audit_verify().ok


def test_a_named_actor_is_recorded_for_a_queryset_update_in_its_transaction():
    boss = make_player("boss", is_staff=True, is_superuser=True)
    alice = make_player("alice")
    with transaction.atomic(), acting_on_powers(boss):
        User.objects.filter(pk=alice.pk).update(is_staff=True)
    User.objects.filter(pk=alice.pk).update(is_staff=False)  # after it: nobody named
    named, unnamed = power_records(alice)
    assert named.actor == boss and named.actor_label == "boss"
    assert named.actor_kind == AuditRecord.ActorKind.STAFF
    assert unnamed.actor is None and unnamed.actor_kind == AuditRecord.ActorKind.DATABASE
    assert audit_verify().ok


def test_raw_sql_is_recorded_and_a_rolled_back_change_leaves_nothing():
    alice = make_player("alice")
    with connection.cursor() as cursor:
        cursor.execute("UPDATE auth_user SET is_staff = true WHERE id = %s", [alice.pk])
    with pytest.raises(RuntimeError), transaction.atomic():
        User.objects.filter(pk=alice.pk).update(is_superuser=True)
        raise RuntimeError("changed my mind")
    [staffed] = power_records(alice)
    assert staffed.payload["after"] == {**NONE, "is_staff": True}
    assert audit_verify().ok


def test_group_membership_from_either_side_and_by_raw_sql_is_one_record_per_change():
    make_staff("keeper", "support")  # the role groups, if a test flushed them
    support = Group.objects.get(name="support")
    managers = Group.objects.get(name="cashier managers")
    alice = make_player("alice", is_staff=True)
    start = len(power_records(alice))
    alice.groups.add(support, managers)  # one statement: one record
    support.user_set.remove(alice)
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO auth_user_groups (user_id, group_id) VALUES (%s, %s)",
            [alice.pk, support.pk],
        )
        cursor.execute("DELETE FROM auth_user_groups WHERE user_id = %s", [alice.pk])
    added, removed, raw_added, cleared = power_records(alice)[start:]
    assert all(r.payload["change"] == "groups" for r in (added, removed, raw_added, cleared))
    assert (added.payload["before"], added.payload["after"]) == (
        [],
        ["cashier managers", "support"],
    )
    assert (removed.payload["before"], removed.payload["after"]) == (
        ["cashier managers", "support"],
        ["cashier managers"],
    )
    assert raw_added.payload["after"] == ["cashier managers", "support"]
    assert (cleared.payload["before"], cleared.payload["after"]) == (
        ["cashier managers", "support"],
        [],
    )
    assert audit_verify().ok


def test_a_group_change_touching_several_users_records_each_once():
    make_staff("keeper", "support")
    support = Group.objects.get(name="support")
    alice, bob = make_player("alice"), make_player("bob")
    support.user_set.add(alice, bob)
    [alice_in] = power_records(alice)
    [bob_in] = power_records(bob)
    assert alice_in.payload["after"] == bob_in.payload["after"] == ["support"]
    assert audit_verify().ok


def test_an_admin_change_names_the_staff_member_once_per_change():
    boss = make_staff("boss", "support", is_superuser=True)
    alice = make_player("alice")
    managers = Group.objects.get(name="cashier managers")
    answer = admin_user_change(boss, alice, groups=[managers], is_superuser=True)
    assert answer.status_code == 302, answer.context["adminform"].form.errors
    flags, groups = power_records(alice)
    assert flags.actor == groups.actor == boss
    assert flags.payload["after"] == {**NONE, "is_superuser": True}
    assert groups.payload["after"] == ["cashier managers"]
    assert audit_verify().ok


@pytest.mark.django_db(transaction=True)
def test_the_record_is_hashed_as_audit_record_hashes_even_odd_names():
    """The database's canonical JSON matches Python's for quotes, escapes, non-ASCII and a time
    with and without microseconds (verify_audit recomputes each content hash)."""
    make_staff("keeper", "support")
    odd = Group.objects.create(name='Caisse "nuit"\\\t\n\u00e9\u65e5\u0001')
    alice = make_player('ali"ce\u00e9')
    alice.groups.add(odd)
    with connection.cursor() as cursor:
        cursor.execute("UPDATE auth_user SET is_staff = true WHERE id = %s", [alice.pk])
    assert len(power_records(alice)) == 2
    report = audit_verify()
    assert report.ok and report.pending == 0, report.problems
