"""Playing a Sit & Go at its table: chips that are not money, the blind clock, eliminations
and the prizes paid in one balanced entry."""

import pytest

from cashier.models import Account, Entry
from cashier.selectors import wallet_balance
from cashier.verify import ledger_verify
from poker import services
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Seat, Table
from poker.selectors import table_versions_for_heartbeat
from tests.factories import deal_hand, make_funded_player, play_hand_all_in
from tests.factories import make_sit_and_go as make_sng
from tournaments.models import Registration, place_amounts
from tournaments.services import (
    shares_split,
    tournament_level_up,
    tournament_register,
)
from tournaments.tasks import level_timeout

pytestmark = pytest.mark.django_db


def pool(tournament) -> int:
    account = Account.objects.filter(kind="tournament_pool", tournament_id=tournament.pk).first()
    return account.balance if account else 0


def started_heads_up(**overrides):
    sng = make_sng(seats=2, starting_chips=100, **overrides)
    players = [make_funded_player(name, cents=5_000) for name in ("ann", "bob")]
    for player in players:
        tournament_register(player=player, tournament=sng, idempotency_key=f"k-{player.pk}")
    sng.refresh_from_db()
    return sng, {p.pk: p for p in players}


def test_a_heads_up_sit_and_go_plays_chips_off_the_ledger_and_pays_the_winner_once():
    sng, players = started_heads_up()
    assert sng.status == "running" and sng.level == 1 and sng.table is not None
    table = sng.table
    assert table.is_tournament and table.rake_schedule_id is None
    assert (table.small_blind, table.big_blind, table.action_seconds) == (10, 20, 30)
    seats = {s.number: s for s in Seat.objects.filter(table=table)}
    assert sorted(s.chips for s in seats.values()) == [100, 100]
    by_seat = {n: players[s.player_id] for n, s in seats.items()}
    entries_before = Entry.objects.count()
    for _ in range(30):
        hand = deal_hand(table)
        assert hand is not None
        assert hand.setup["small_blind_seat"] == hand.setup["button"]  # heads-up rule
        play_hand_all_in(hand, by_seat)
        sng.refresh_from_db()
        if sng.status == "finished":
            break
        # A hand settles chips only: no ledger entry, the pool still holds the buy-ins.
        assert Entry.objects.count() == entries_before and pool(sng) == 2_000
        assert sum(Seat.objects.filter(table=table).values_list("chips", flat=True)) == 200
    assert sng.status == "finished"
    entry = Entry.objects.get(pk=sng.payout_entry_id)
    assert Entry.objects.count() == entries_before + 1
    winner = Registration.objects.get(tournament=sng, place=1)
    loser = Registration.objects.get(tournament=sng, place=2)
    assert (winner.prize, loser.prize) == (2_000, 0)
    legs = sorted((p.account.kind, p.account.owner_id, p.amount) for p in entry.postings.all())
    assert legs == [("tournament_pool", None, -2_000), ("wallet", winner.player_id, 2_000)]
    assert wallet_balance(player=players[winner.player_id]) == 5_000 - 1_100 + 2_000
    assert wallet_balance(player=players[loser.player_id]) == 5_000 - 1_100
    assert pool(sng) == 0 and not Table.objects.get(pk=table.pk).is_open
    assert list(Seat.objects.filter(table=table).values_list("player_id", flat=True)) == [
        winner.player_id
    ]
    # Its sockets were closed with it (`table_closed`): no heartbeat for the winner's seat.
    assert table.pk not in table_versions_for_heartbeat()
    assert ledger_verify().ok
    # verify_ledger holds the prize entry to the places' prizes.
    Registration.objects.filter(pk=loser.pk).update(prize=1)
    assert any("prize entry" in problem for problem in ledger_verify().problems)


def test_the_level_clock_raises_the_blinds_from_the_next_hand_and_once():
    sng, _players = started_heads_up()
    table = sng.table
    hand = deal_hand(table)
    # The level timer, run directly as the worker would (no owner runs in the test).
    from config.timeouts import Timeout

    timeout = Timeout.due_at(
        "tournament.level", table_id=table.pk, ref_id=sng.pk, step=2, at=sng.next_level_at
    )
    assert level_timeout(timeout) == "level"
    assert tournament_level_up(tournament_id=sng.pk, level=2) == "stale"  # twice: nothing
    table.refresh_from_db()
    sng.refresh_from_db()
    assert (table.small_blind, table.big_blind, sng.level) == (15, 30, 2)
    assert sng.next_level_at is not None
    # The running hand keeps its blinds; the next hand deals the new ones.
    engine = EngineHand.from_dict(Hand.objects.get(pk=hand.pk).state)
    assert max(engine.bets) == 20
    services.hand_cancel(hand=hand, reason="test")
    next_hand = deal_hand(table)
    assert max(EngineHand.from_dict(next_hand.state).bets) == 30
    assert ledger_verify().ok


def test_a_player_sitting_out_is_dealt_in_and_blinded():
    sng, players = started_heads_up()
    table = sng.table
    seat = Seat.objects.filter(table=table).first()
    services.table_sit_out(table=table, player=players[seat.player_id])
    hand = deal_hand(table)
    assert hand is not None and hand.is_dealt(seat.number)
    hand.refresh_from_db()
    # Their turns are played for them at once (check, else fold): the hand never waits on them.
    assert hand.status != Hand.Status.RUNNING or (
        EngineHand.from_dict(hand.state).to_act != seat.number
    )
    assert Seat.objects.get(pk=seat.pk).status == Seat.Status.SITTING_OUT


def test_tournament_seats_refuse_leaving_and_topping_up():
    sng, players = started_heads_up()
    seat = Seat.objects.filter(table=sng.table).first()
    for call in (
        lambda: services.table_leave(table=sng.table, player=players[seat.player_id]),
        lambda: services.table_top_up(
            table=sng.table, player=players[seat.player_id], amount=100, idempotency_key="t"
        ),
    ):
        with pytest.raises(services.TableError) as error:
            call()
        assert error.value.code == "tournament_table"


def test_prizes_split_exactly_odd_cents_to_first_place_and_in_order():
    assert place_amounts([50, 30, 20], 1_001) == [501, 300, 200]
    assert sum(place_amounts([65, 35], 999)) == 999
    # Two sharing 2nd and 3rd of 1,001: 300 + 200 = 500, 250 each; 501 cents: 251 + 250.
    assert shares_split(500, [7, 8]) == {7: 250, 8: 250}
    assert shares_split(501, [8, 7]) == {8: 251, 7: 250}


def test_two_out_in_one_hand_the_bigger_start_places_higher():
    # A 6-max Sit & Go down to three players; the hook alone, on a finished hand's chips.
    sng = make_sng(
        seats=6,
        payouts=[
            {"min_entrants": 2, "max_entrants": 3, "percents": [100]},
            {"min_entrants": 4, "max_entrants": 6, "percents": [50, 30, 20]},
        ],
    )
    players = [make_funded_player(f"p{k}", cents=5_000) for k in range(6)]
    for player in players:
        tournament_register(player=player, tournament=sng, idempotency_key=f"k-{player.pk}")
    sng.refresh_from_db()
    seats = sorted(Seat.objects.filter(table=sng.table), key=lambda s: s.number)
    # Three are out already (places 4 to 6 were taken, prize 0), by chips set straight here.
    for seat in seats[3:]:
        seat.delete()
    Registration.objects.filter(
        tournament=sng, player_id__in=[s.player_id for s in seats[3:]]
    ).update(place=5)
    a, b, c = seats[:3]
    Seat.objects.filter(pk=c.pk).update(chips=1_000)
    hand = deal_hand(sng.table)
    # The winner takes both others' chips at a showdown: force the result on the chips.
    from poker.services import acting, unit
    from tournaments.services import tournament_hand_end

    hand.setup["seats"] = [[a.number, 1_500], [b.number, 1_500], [c.number, 1_000]]
    hand.setup["button"] = a.number
    with unit.table_change(sng.table) as change:
        acting.chips_settle(
            change, net_by_seat={a.number: 2_500, b.number: -1_500, c.number: -1_000}
        )
        tournament_hand_end(change, hand, None)
    sng.refresh_from_db()
    place = dict(Registration.objects.filter(tournament=sng).values_list("player_id", "place"))
    assert place[b.player_id] == 2 and place[c.player_id] == 3 and place[a.player_id] == 1
    prize = dict(Registration.objects.filter(tournament=sng).values_list("player_id", "prize"))
    assert (prize[a.player_id], prize[b.player_id], prize[c.player_id]) == (3_000, 1_800, 1_200)
    assert sng.status == "finished" and pool(sng) == 0


def test_a_level_with_an_ante_deals_it_before_the_blinds_and_the_chips_stay_exact():
    levels = [
        {"small_blind": 10, "big_blind": 20, "ante": 5, "minutes": 5},
        {"small_blind": 15, "big_blind": 30, "ante": 10, "minutes": 5},
    ]
    sng, players = started_heads_up(blind_levels=levels)
    table = sng.table
    assert table.ante == 5
    seats = {s.number: s for s in Seat.objects.filter(table=table)}
    by_seat = {n: players[s.player_id] for n, s in seats.items()}
    hand = deal_hand(table)
    posted = [e for e in hand.state["events"] if e["type"] == "ante_posted"]
    assert sorted((e["seat"], e["amount"]) for e in posted) == [(1, 5), (2, 5)]
    assert hand.setup["ante"] == 5 and hand.state["events"][0]["ante"] == 5
    assert tournament_level_up(tournament_id=sng.pk, level=2) == "level"
    table.refresh_from_db()
    assert table.ante == 10  # from the next hand: the running one keeps its ante
    play_hand_all_in(hand, by_seat)
    assert Hand.objects.get(pk=hand.pk).result["pots"][0]["amount"] >= 10
    assert sum(Seat.objects.filter(table=table).values_list("chips", flat=True)) == 200
    assert ledger_verify().ok


def test_a_cash_table_never_has_an_ante():
    from django.db import IntegrityError, transaction

    from tests.factories import make_table

    table = make_table()
    assert table.ante == 0 and "ante" not in table.engine_stakes()
    with pytest.raises(IntegrityError), transaction.atomic():
        Table.objects.filter(pk=table.pk).update(ante=5)


def test_a_break_pauses_the_deals_then_the_next_level_starts():
    from datetime import timedelta

    from django.utils import timezone

    from audit.models import AuditRecord
    from poker.selectors import table_json

    sng, _players = started_heads_up(breaks=[{"after_level": 1, "minutes": 5}])
    table = sng.table
    assert table_json(table)["break_until"] is None
    # The level's own minutes only: the break comes after it.
    assert sng.next_level_at == sng.started_at + timedelta(minutes=5)
    hand = deal_hand(table)
    now = timezone.now()
    assert tournament_level_up(tournament_id=sng.pk, level=2, now=now) == "break"
    table.refresh_from_db()
    sng.refresh_from_db()
    assert table.break_until == now + timedelta(minutes=5) == sng.next_level_at
    assert sng.level == 1 and (table.small_blind, table.big_blind) == (10, 20)
    assert table_json(table)["break_until"] == table.break_until.isoformat()
    assert AuditRecord.objects.filter(action="tournament.break").exists()
    # The running hand plays on; no new one is dealt during the break.
    assert Hand.objects.get(pk=hand.pk).status == Hand.Status.RUNNING
    services.hand_cancel(hand=hand, reason="test")
    assert deal_hand(table) is None
    # A timer a minute early waits; at the break's end the next level starts and play resumes.
    early = now + timedelta(minutes=1)
    assert tournament_level_up(tournament_id=sng.pk, level=2, now=early) == "early"
    assert tournament_level_up(tournament_id=sng.pk, level=2, now=table.break_until) == "level"
    table.refresh_from_db()
    sng.refresh_from_db()
    assert table.break_until is None and sng.level == 2
    assert (table.small_blind, table.big_blind) == (15, 30)
    assert deal_hand(table) is not None
    assert tournament_level_up(tournament_id=sng.pk, level=2) == "stale"


def test_staff_cancelling_after_play_began_settle_the_pool_by_the_published_split():
    from audit.models import AuditRecord
    from tests.factories import make_staff
    from tournaments.models import Tournament
    from tournaments.services import (
        cancel_shares,
        tournament_cancel_approve,
        tournament_cancel_request,
    )

    sng = make_sng(seats=6, buy_in=1_001)  # a pool of 6,006 cents: odd cents to split
    players = [make_funded_player(f"c{k}", cents=5_000) for k in range(6)]
    for player in players:
        tournament_register(player=player, tournament=sng, idempotency_key=f"k-{player.pk}")
    sng.refresh_from_db()
    seats = sorted(Seat.objects.filter(table=sng.table), key=lambda s: s.number)
    # Two are out already (6th and 5th: no prize), by chips set straight here.
    for seat in seats[4:]:
        seat.delete()
    Registration.objects.filter(
        tournament=sng, player_id__in=[s.player_id for s in seats[4:]]
    ).update(place=5)
    chips = {seats[0].pk: 1_000, seats[1].pk: 2_000, seats[2].pk: 3_001, seats[3].pk: 2_999}
    for pk, count in chips.items():
        Seat.objects.filter(pk=pk).update(chips=count)
    hand = deal_hand(sng.table)
    assert hand is not None
    asker, approver = make_staff("asker"), make_staff("approver")
    cancellation = tournament_cancel_request(tournament=sng, requested_by=asker, reason="fault")
    entries_before = Entry.objects.count()
    tournament_cancel_approve(cancellation=cancellation, approved_by=approver, reason="agreed")

    sng = Tournament.objects.get(pk=sng.pk)
    assert sng.status == "cancelled" and sng.payout_entry_id is not None
    assert Hand.objects.get(pk=hand.pk).status == Hand.Status.CANCELLED
    # The hand's chips went back to its start: nothing moved.
    assert {s.pk: s.chips for s in Seat.objects.filter(table=sng.table)} == chips
    assert not Table.objects.get(pk=sng.table_id).is_open and sng.next_level_at is None
    # One entry: half of the 6,006 in equal shares (3,003: 751, 751, 751, 750 clockwise from the
    # button's left), half by chips (3,003 of 9,000 chips: 333.67, 667.33, 1,001.33, 1,000.66:
    # the two cents left over to the largest remainders).
    assert Entry.objects.count() == entries_before + 1
    prize = dict(Registration.objects.filter(tournament=sng).values_list("player_id", "prize"))
    by_chips = {seats[0].player_id: 334, seats[1].player_id: 667}
    by_chips |= {seats[2].player_id: 1_001, seats[3].player_id: 1_001}
    equal = {pid: prize[pid] - by_chips[pid] for pid in by_chips}
    assert sorted(equal.values()) == [750, 751, 751, 751]
    assert sum(prize.values()) == 6_006 and pool(sng) == 0
    legs = {
        p.account.owner_id: p.amount
        for p in Entry.objects.get(pk=sng.payout_entry_id).postings.all()
    }
    assert legs.pop(None) == -6_006 and legs == {pid: prize[pid] for pid in by_chips}
    record = AuditRecord.objects.get(action="staff.tournament_cancelled", actor=approver)
    assert record.payload["settlement"]["pool"] == 6_006
    assert record.payload["settlement"]["hand_cancelled"] == hand.pk
    assert ledger_verify().ok
    # The split alone: exact to the cent, whatever the chips.
    shares = cancel_shares(1_001, [(1, 1), (2, 1), (3, 1)])
    assert sum(a + b for a, b in shares.values()) == 1_001


def test_a_self_excluded_players_running_seat_is_blinded_and_cannot_sit_back_in():
    from responsible.services import exclusion_start

    sng, players = started_heads_up()
    table = sng.table
    seat = Seat.objects.filter(table=table).order_by("number").first()
    player = players[seat.player_id]
    exclusion_start(player=player, kind="self_exclusion", length="6m")
    seat.refresh_from_db()
    # Sat out, not removed: the chips stay hers and in play, the place she reaches hers.
    assert seat.status == Seat.Status.SITTING_OUT and seat.chips == 100
    assert Registration.objects.get(tournament=sng, player=player).status == "active"
    with pytest.raises(services.TableError):
        services.table_sit_in(table=table, player=player, post_big_blind=False)
    hand = deal_hand(table)
    assert hand is not None and hand.is_dealt(seat.number)  # dealt in and blinded
    hand.refresh_from_db()
    assert hand.status != Hand.Status.RUNNING or (
        EngineHand.from_dict(hand.state).to_act != seat.number
    )
    assert ledger_verify().ok
