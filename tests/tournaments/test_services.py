"""Registering for a Sit & Go and leaving it: one balanced ledger entry each way, refusals that
change nothing, the start when the seats fill, responsible gaming, staff cancelling."""

import pytest

from audit.models import AuditRecord
from cashier.models import Account, Entry
from cashier.selectors import wallet_balance
from cashier.verify import ledger_verify
from responsible.services import exclusion_start, loss_limit_set
from tests.factories import make_funded_player, make_sit_and_go, make_staff
from tournaments.models import Cancellation, Registration, Tournament
from tournaments.services import (
    TournamentError,
    tournament_cancel_approve,
    tournament_cancel_reject,
    tournament_cancel_request,
    tournament_register,
    tournament_unregister,
)

pytestmark = pytest.mark.django_db


def legs(entry: Entry) -> dict[str, int]:
    return {p.account.kind: p.amount for p in entry.postings.select_related("account")}


def pool(tournament) -> int:
    account = Account.objects.filter(kind="tournament_pool", tournament_id=tournament.pk).first()
    return account.balance if account else 0


def fill(tournament, names):
    return [
        tournament_register(
            player=make_funded_player(name), tournament=tournament, idempotency_key=f"k-{name}"
        )
        for name in names
    ]


def test_a_registration_is_one_balanced_entry_to_the_pool_and_the_fee_and_replays_once():
    sng = make_sit_and_go()
    alice = make_funded_player("alice", cents=5_000)
    registration = tournament_register(player=alice, tournament=sng, idempotency_key="reg-1")
    entry = Entry.objects.get(pk=registration.entry_id)
    assert entry.reason == "tournament_buy_in" and entry.tournament_id == sng.pk
    assert entry.idempotency_key == "reg-1" and entry.player == alice
    assert legs(entry) == {"wallet": -1_100, "tournament_pool": 1_000, "tournament_fees": 100}
    assert wallet_balance(player=alice) == 3_900 and pool(sng) == 1_000
    # The same request again (a double click, a retry): the same registration, no money.
    again = tournament_register(player=alice, tournament=sng.pk, idempotency_key="reg-1")
    assert again.pk == registration.pk
    assert Entry.objects.filter(reason="tournament_buy_in").count() == 1
    assert wallet_balance(player=alice) == 3_900
    assert AuditRecord.objects.filter(action="tournament.registered").count() == 1
    assert ledger_verify().ok


def test_unregistering_before_the_start_refunds_buy_in_and_fee_in_one_entry():
    sng = make_sit_and_go()
    alice = make_funded_player("alice", cents=5_000)
    tournament_register(player=alice, tournament=sng, idempotency_key="reg-1")
    left = tournament_unregister(player=alice, tournament=sng)
    refund = Entry.objects.get(pk=left.refund_entry_id)
    assert left.status == "unregistered" and refund.reason == "tournament_refund"
    assert legs(refund) == {"wallet": 1_100, "tournament_pool": -1_000, "tournament_fees": -100}
    assert wallet_balance(player=alice) == 5_000 and pool(sng) == 0
    # Registering again is a new request (a new key), a new entry.
    tournament_register(player=alice, tournament=sng, idempotency_key="reg-2")
    assert wallet_balance(player=alice) == 3_900
    assert ledger_verify().ok


def refused(call) -> str:
    before = (Entry.objects.count(), Registration.objects.count(), Tournament.objects.count())
    with pytest.raises(TournamentError) as error:
        call()
    assert (Entry.objects.count(), Registration.objects.count(), Tournament.objects.count()) == (
        before
    )
    assert error.value.message
    return error.value.code


def test_bad_requests_are_refused_and_change_nothing():
    sng = make_sit_and_go(seats=2)
    alice, poor = make_funded_player("alice"), make_funded_player("poor", cents=1_099)
    tournament_register(player=alice, tournament=sng, idempotency_key="reg-1")
    register = tournament_register
    assert refused(lambda: register(player=alice, tournament=sng, idempotency_key="reg-2")) == (
        "already_registered"
    )
    assert refused(lambda: register(player=poor, tournament=sng, idempotency_key="p")) == (
        "insufficient_funds"
    )
    for forged in ("1", 0, -3, True, None, 10**12):
        code = refused(lambda f=forged: register(player=alice, tournament=f, idempotency_key="x"))
        assert code == "unknown_tournament"
    assert refused(lambda: register(player=alice, tournament=sng, idempotency_key="")) == (
        "missing_idempotency_key"
    )
    assert refused(lambda: tournament_unregister(player=poor, tournament=sng)) == "not_registered"
    assert wallet_balance(player=poor) == 1_099


def test_the_last_seat_starts_it_with_a_seat_draw_and_opens_the_next_one():
    sng = make_sit_and_go(seats=6)
    registrations = fill(sng, ["p1", "p2", "p3", "p4", "p5", "p6"])
    sng.refresh_from_db()
    assert sng.status == "running" and sng.started_at is not None
    seats = sorted(Registration.objects.filter(tournament=sng).values_list("seat", flat=True))
    assert seats == [1, 2, 3, 4, 5, 6]
    assert AuditRecord.objects.filter(action="tournament.started").count() == 1
    [following] = Tournament.objects.filter(template=sng.template, status="registering")
    assert following.pk != sng.pk and pool(sng) == 6_000
    late = make_funded_player("late")
    code = refused(lambda: tournament_register(player=late, tournament=sng, idempotency_key="l"))
    assert code == "not_registering"
    first = registrations[0].player
    assert refused(lambda: tournament_unregister(player=first, tournament=sng)) == (
        "already_started"
    )
    assert ledger_verify().ok


def test_a_time_out_or_a_loss_limit_refuses_registration():
    sng = make_sit_and_go()
    resting, losing = make_funded_player("resting"), make_funded_player("losing")
    exclusion_start(player=resting, kind="time_out", length=1)
    code = refused(lambda: tournament_register(player=resting, tournament=sng, idempotency_key="r"))
    assert code == "excluded"
    # A loss limit counts buy-ins (with the fee) as losses: the second one reaches it.
    loss_limit_set(player=losing, period="day", amount=1_100)
    tournament_register(player=losing, tournament=sng, idempotency_key="l1")
    other = make_sit_and_go(name="other")
    code = refused(
        lambda: tournament_register(player=losing, tournament=other, idempotency_key="2")
    )
    assert code == "loss_limit"


def test_a_self_exclusion_takes_the_player_out_of_sit_and_gos_not_started_refunded():
    waiting, running = make_sit_and_go(name="waiting"), make_sit_and_go(name="running", seats=2)
    alice = make_funded_player("alice", cents=10_000)
    tournament_register(player=alice, tournament=waiting, idempotency_key="w")
    tournament_register(player=alice, tournament=running, idempotency_key="r")
    fill(running, ["bob"])
    exclusion_start(player=alice, kind="self_exclusion", length="6m")
    gone = Registration.objects.get(tournament=waiting, player=alice)
    assert gone.status == "excluded" and pool(waiting) == 0
    # At the running one she stays entered, her seat sitting out (dealt in and blinded).
    assert Registration.objects.get(tournament=running, player=alice).status == "active"
    assert wallet_balance(player=alice) == 10_000 - 1_100
    assert ledger_verify().ok


def test_staff_cancel_an_empty_sit_and_go_at_once_and_a_paid_one_with_four_eyes():
    asker, approver = make_staff("asker"), make_staff("approver")
    empty = make_sit_and_go(name="empty")
    assert tournament_cancel_request(tournament=empty, requested_by=asker, reason="typo") is None
    empty.refresh_from_db()
    assert empty.status == "cancelled" and empty.cancel_reason == "typo"
    assert Tournament.objects.filter(template=empty.template, status="registering").count() == 1

    sng = make_sit_and_go(name="paid", seats=2)
    [alice_in] = fill(sng, ["alice"])
    fill(sng, ["bob"])  # full: it runs
    cancellation = tournament_cancel_request(tournament=sng, requested_by=asker, reason="fault")
    assert Tournament.objects.get(pk=sng.pk).status == "running"  # nothing moved yet
    with pytest.raises(TournamentError) as same:
        tournament_cancel_approve(cancellation=cancellation, approved_by=asker, reason="ok")
    assert same.value.code == "four_eyes"
    done = tournament_cancel_approve(cancellation=cancellation, approved_by=approver, reason="ok")
    assert done.status == "approved"
    assert Tournament.objects.get(pk=sng.pk).status == "cancelled" and pool(sng) == 0
    assert wallet_balance(player=alice_in.player) == 100_000
    assert set(Registration.objects.filter(tournament=sng).values_list("status", flat=True)) == {
        "cancelled"
    }
    record = AuditRecord.objects.get(action="staff.tournament_cancelled", actor=approver)
    assert len(record.payload["refunds"]) == 2 and record.reason == "ok"
    assert ledger_verify().ok


def test_a_rejected_cancellation_moves_nothing():
    asker, other = make_staff("asker"), make_staff("other")
    sng = make_sit_and_go()
    fill(sng, ["alice"])
    cancellation = tournament_cancel_request(tournament=sng, requested_by=asker, reason="why")
    with pytest.raises(TournamentError) as twice:
        tournament_cancel_request(tournament=sng, requested_by=other, reason="again")
    assert twice.value.code == "already_requested"
    tournament_cancel_reject(cancellation=cancellation, rejected_by=other, reason="no")
    assert Cancellation.objects.get().status == "rejected"
    assert Tournament.objects.get(pk=sng.pk).status == "registering" and pool(sng) == 1_000
