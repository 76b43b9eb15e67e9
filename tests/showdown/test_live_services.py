"""The live seven-seat table's services: several seats against one board, the betting window
and the decision deadline (a seat that does not decide in time folds), money conserved and
verify_ledger clean, repeated frames replayed, refusals that change nothing."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from cashier.models import Account, Entry
from cashier.selectors import wallet_balance
from cashier.verify import ledger_verify
from config.errors import Refused
from config.timeouts import timeout_fire
from showdown import services
from showdown.live import (
    live_connection_set,
    live_decide,
    live_round_advance,
    live_rounds_sweep,
    live_seat_away_stand,
    live_seat_leave,
    live_seat_take,
    live_seats_away_sweep,
)
from showdown.live_selectors import live_table_view
from showdown.models import LiveRound, LiveSeat, ShowdownRound
from showdown.selectors import tables_for_lobby
from showdown.services import ShowdownRefused
from tests.factories import make_funded_player, make_showdown_table
from tests.showdown.play import START, live_deck, seated, wager
from tests.sweep import cards_in

Kind = Account.Kind


@pytest.fixture
def live_table(db):
    return make_showdown_table(seats=7, bet_seconds=15, action_seconds=20)


@pytest.fixture
def deck_is(monkeypatch):
    def set_deck(holes: list[str], board: str) -> None:
        deck = live_deck(holes, board)
        monkeypatch.setattr(services, "deck_shuffle", lambda randbelow: list(deck))

    return set_deck


def assert_books_balance() -> None:
    assert sum(Account.objects.values_list("balance", flat=True)) == 0
    report = ledger_verify()
    assert report.ok, report.problems


def in_play() -> int:
    """Bets in play: the sum of the house's shards of that account."""
    return sum(
        Account.objects.filter(kind=Kind.BANKED_BETS_IN_PLAY).values_list("balance", flat=True)
    )


def snapshot_of_books() -> tuple:
    return (
        tuple(Account.objects.order_by("pk").values_list("pk", "balance")),
        Entry.objects.count(),
        ShowdownRound.objects.count(),
        tuple(LiveRound.objects.order_by("pk").values_list("pk", "phase", "state")),
        tuple(LiveSeat.objects.order_by("pk").values_list("pk", "number")),
    )


def test_three_seats_decide_and_one_board_settles_them_all(live_table, deck_is):
    ann, bob, cat = (seated(live_table, n, s) for n, s in (("ann", 1), ("bob", 3), ("cat", 6)))
    # Ann: royal flush (Bet 25 to 1); Bob: queen high; Cat: a heart flush in the hole.
    deck_is(["AsKs2c3d", "2d7c4s8c", "2h5h9hKh"], "QsJsTs4h9c")
    wager(ann, live_table, "a1", ante=500, fhb=100)
    wager(bob, live_table, "b1", ante=1000)
    live = LiveRound.objects.get()
    assert live.phase == LiveRound.Phase.BETTING
    wager(cat, live_table, "c1", ante=500, hcb=200)
    live.refresh_from_db()
    assert live.phase == LiveRound.Phase.DECIDING  # every seated player is in: dealt at once
    assert in_play() == 500 + 100 + 1000 + 500 + 200
    assert_books_balance()

    assert live_decide(player=ann, table_id=live_table.pk, decision="raise", idempotency_key="a2")
    live_decide(player=bob, table_id=live_table.pk, decision="fold", idempotency_key="b2")
    assert LiveRound.objects.get().phase == LiveRound.Phase.DECIDING
    live_decide(player=cat, table_id=live_table.pk, decision="call", idempotency_key="c2")

    live.refresh_from_db()
    assert live.phase == LiveRound.Phase.SETTLED
    rounds = {r.player.username: r for r in ShowdownRound.objects.select_related("player")}
    assert all(r.status == ShowdownRound.Status.SETTLED for r in rounds.values())
    # One board for all: the engine's result for each seat is that player's round.
    assert {r.result["board"][0] for r in rounds.values()} == {"Qs"}
    assert rounds["ann"].net == 500 * 1 + 1000 * 25 + 100 * 200
    assert rounds["bob"].net == -1000
    assert rounds["cat"].result["seats"][0]["wagers"]["hole_card_bonus"]["category"] == "flush"
    for name, player in (("ann", ann), ("bob", bob), ("cat", cat)):
        assert wallet_balance(player=player) == START + rounds[name].net
    assert in_play() == 0
    house = Account.objects.filter(kind=Kind.HOUSE_BANKROLL).values_list("balance", flat=True)
    assert sum(house) == -sum(r.net for r in rounds.values())
    # The board settled every seat in one ledger entry of the room's, which each share names.
    (entry_id,) = {r.result_entry_id for r in rounds.values()}
    entry = Entry.objects.get(pk=entry_id)
    assert entry.reason == Entry.Reason.BANKED_PAYOUT and entry.player_id is None
    wallet_legs = dict(
        entry.postings.filter(account__kind=Kind.WALLET).values_list("account__owner", "amount")
    )
    staked = {name: r.staked for name, r in rounds.items()}
    assert wallet_legs == {
        ann.pk: staked["ann"] + rounds["ann"].net,
        cat.pk: staked["cat"] + rounds["cat"].net,
    }  # Bob lost everything he staked: no leg for him
    assert_books_balance()


def test_the_betting_window_closes_and_seats_without_wagers_sit_out(live_table, deck_is):
    ann, bob = seated(live_table, "ann", 2), seated(live_table, "bob", 5)
    deck_is(["AsKs2c3d"], "QsJsTs4h9c")
    start = timezone.now()
    wager(ann, live_table, "a1", now=start)
    live = LiveRound.objects.get()
    assert live.bet_deadline == start + timedelta(seconds=15)
    # The timer early (or a duplicate of it) does nothing.
    assert live_round_advance(round_id=live.pk, phase="betting", now=start) == ""
    assert LiveRound.objects.get().phase == LiveRound.Phase.BETTING
    assert live_round_advance(round_id=live.pk, phase="betting", now=live.bet_deadline) == "dealt"
    live.refresh_from_db()
    assert live.phase == LiveRound.Phase.DECIDING
    assert live.action_deadline == live.bet_deadline + timedelta(seconds=20)
    assert live.seat_rounds.get().hole == ["As", "Ks", "2c", "3d"]
    # Bob placed nothing: he sits this round out and cannot join it now.
    with pytest.raises(ShowdownRefused) as refused:
        wager(bob, live_table, "b1")
    assert refused.value.code == "round_dealt"
    with pytest.raises(ShowdownRefused) as refused:
        live_decide(player=bob, table_id=live_table.pk, decision="call", idempotency_key="b2")
    assert refused.value.code == "no_round"
    assert wallet_balance(player=bob) == START
    # A late betting timer does nothing now.
    assert live_round_advance(round_id=live.pk, phase="betting", now=live.action_deadline) == ""
    assert_books_balance()


def test_a_round_timer_whose_phase_moved_on_costs_one_read(
    live_table, deck_is, django_assert_num_queries
):
    """The live table's timers are the room's timeouts (config.timeouts): (table, round,
    phase). One that comes after its phase is over (a duplicate, or everyone decided in time)
    reads the round once, takes no lock and changes nothing."""
    ann, _bob = seated(live_table, "ann", 1), seated(live_table, "bob", 2)
    deck_is(["AsKs2c3d"], "QsJsTs4h9c")
    wager(ann, live_table, "a1", now=timezone.now() - timedelta(seconds=15))  # window over
    live = LiveRound.objects.get()
    fired = ("showdown.round", live_table.pk, live.pk, "betting", live.bet_deadline.timestamp())
    assert timeout_fire(*fired) == "dealt"
    before = snapshot_of_books()
    with django_assert_num_queries(1):
        assert timeout_fire(*fired) == ""
    assert LiveRound.objects.get().phase == LiveRound.Phase.DECIDING
    assert snapshot_of_books() == before


def test_a_seat_that_does_not_decide_in_time_folds(live_table, deck_is):
    ann, bob = seated(live_table, "ann", 1), seated(live_table, "bob", 2)
    deck_is(["AsKs2c3d", "2d7c4s8c"], "QsJsTs4h9c")
    start = timezone.now()
    wager(ann, live_table, "a1", fhb=100, now=start)
    wager(bob, live_table, "b1", hcb=100, now=start)
    live = LiveRound.objects.get()
    live_decide(player=ann, table_id=live_table.pk, decision="call", idempotency_key="a2")
    assert (
        live_round_advance(
            round_id=live.pk, phase="deciding", now=live.action_deadline - timedelta(seconds=1)
        )
        == ""
    )
    assert (
        live_round_advance(round_id=live.pk, phase="deciding", now=live.action_deadline)
        == "settled"
    )
    bob_round = ShowdownRound.objects.get(player=bob)
    assert bob_round.decision == "fold" and bob_round.bet == 0
    assert bob_round.result["seats"][0]["wagers"]["ante"]["result"] == "fold"
    # A folded seat's side bet still settles (2d 7c 4s 8c is no Hole Card Bonus hand).
    assert bob_round.net == -500 - 100
    assert wallet_balance(player=bob) == START - 600
    assert ShowdownRound.objects.get(player=ann).net == 500 + 500 * 25 + 100 * 200
    assert in_play() == 0
    assert_books_balance()
    # The timer once more, or the sweep, changes nothing.
    before = snapshot_of_books()
    assert live_round_advance(round_id=live.pk, phase="deciding", now=live.action_deadline) == ""
    assert live_rounds_sweep(now=live.action_deadline + timedelta(minutes=5)) == {
        "dealt": 0,
        "settled": 0,
    }
    assert snapshot_of_books() == before


def test_the_sweep_deals_and_folds_on_the_stored_deadlines(live_table, deck_is):
    ann = seated(live_table, "ann", 4)
    seated(live_table, "bob", 5)
    deck_is(["2d7c4s8c"], "QsJsTs4h9c")
    start = timezone.now()
    wager(ann, live_table, "a1", now=start)
    assert live_rounds_sweep(now=start) == {"dealt": 0, "settled": 0}
    assert live_rounds_sweep(now=start + timedelta(seconds=15)) == {"dealt": 1, "settled": 0}
    assert live_rounds_sweep(now=start + timedelta(seconds=35)) == {"dealt": 0, "settled": 1}
    mine = ShowdownRound.objects.get()
    assert (mine.decision, mine.net) == ("fold", -500)
    assert_books_balance()


def test_repeated_frames_replay_and_reused_keys_are_refused(live_table, deck_is):
    ann, bob = seated(live_table, "ann", 1), seated(live_table, "bob", 2)
    deck_is(["AsKs2c3d", "2d7c4s8c"], "QsJsTs4h9c")
    first = wager(ann, live_table, "a1")
    assert wager(ann, live_table, "a1").pk == first.pk
    assert wallet_balance(player=ann) == START - 500
    with pytest.raises(ShowdownRefused) as refused:
        wager(ann, live_table, "a1", ante=600)
    assert refused.value.code == "idempotency_conflict"
    with pytest.raises(ShowdownRefused) as refused:
        wager(ann, live_table, "a-other")
    assert refused.value.code == "already_placed"
    wager(bob, live_table, "b1")
    decided = live_decide(player=ann, table_id=live_table.pk, decision="raise", idempotency_key="k")
    again = live_decide(player=ann, table_id=live_table.pk, decision="raise", idempotency_key="k")
    assert decided.pk == again.pk and again.bet == 1000
    assert wallet_balance(player=ann) == START - 1500
    with pytest.raises(ShowdownRefused) as refused:
        live_decide(player=ann, table_id=live_table.pk, decision="call", idempotency_key="k")
    assert refused.value.code == "idempotency_conflict"
    with pytest.raises(ShowdownRefused) as refused:
        live_decide(player=ann, table_id=live_table.pk, decision="call", idempotency_key="k2")
    assert refused.value.code == "already_decided"
    assert_books_balance()


@pytest.mark.parametrize(
    "attempt, code",
    [
        (lambda t, p, o: wager(o, t, "x", ante=500), "not_seated"),
        (lambda t, p, o: wager(p, t, "x", ante=499), "outside_limits"),
        (lambda t, p, o: wager(p, t, "x", ante="5.00"), "bad_amount"),
        (lambda t, p, o: wager(p, t, "x", ante=500, hcb=-1), "bad_amount"),
        (lambda t, p, o: wager(p, t, "", ante=500), "missing_idempotency_key"),
        (lambda t, p, o: live_decide(player=p, table_id=t.pk, decision="call",
                                     idempotency_key="d"), "no_round"),
        (lambda t, p, o: live_decide(player=p, table_id=t.pk, decision="check",
                                     idempotency_key="d"), "bad_decision"),
        (lambda t, p, o: live_seat_take(player=o, table_id=t.pk, seat=1), "seat_taken"),
        (lambda t, p, o: live_seat_take(player=o, table_id=t.pk, seat=8), "no_such_seat"),
        (lambda t, p, o: live_seat_take(player=p, table_id=t.pk, seat=2), "already_seated"),
        (lambda t, p, o: live_seat_leave(player=o, table_id=t.pk), "not_seated"),
        (lambda t, p, o: live_seat_take(player=o, table_id=t.pk + 999, seat=2), "unknown_table"),
    ],
)  # fmt: skip
def test_refusals_change_nothing(live_table, attempt, code):
    player = seated(live_table, "ann", 1)
    other = make_funded_player("bob", cents=START)
    before = snapshot_of_books()
    with pytest.raises(Refused) as refused:
        attempt(live_table, player, other)
    assert refused.value.code == code
    assert snapshot_of_books() == before


def test_wagers_the_wallet_cannot_cover_are_refused_and_open_no_round(live_table):
    poor = make_funded_player("poor", cents=400)
    live_seat_take(player=poor, table_id=live_table.pk, seat=3)
    before = snapshot_of_books()
    with pytest.raises(Refused) as refused:
        wager(poor, live_table, "p1", ante=500)
    assert refused.value.code == "insufficient_funds"
    assert snapshot_of_books() == before and not LiveRound.objects.exists()


def test_refusals_during_a_round_change_nothing(live_table, deck_is):
    ann, bob = seated(live_table, "ann", 1), seated(live_table, "bob", 2)
    deck_is(["AsKs2c3d"], "QsJsTs4h9c")
    wager(ann, live_table, "a1")
    before = snapshot_of_books()
    for attempt, code in [
        (lambda: live_decide(player=ann, table_id=live_table.pk, decision="call",
                             idempotency_key="d"), "not_dealt"),
        (lambda: live_seat_leave(player=ann, table_id=live_table.pk), "round_in_play"),
    ]:  # fmt: skip
        with pytest.raises(ShowdownRefused) as refused:
            attempt()
        assert refused.value.code == code
        assert snapshot_of_books() == before
    # Bob may leave (he has no wagers in play) and his seat frees up.
    live_seat_leave(player=bob, table_id=live_table.pk)
    assert not LiveSeat.objects.filter(player=bob).exists()


def test_the_view_shows_a_player_their_own_cards_only_until_the_round_settles(live_table, deck_is):
    ann, bob = seated(live_table, "ann", 1), seated(live_table, "bob", 2)
    deck_is(["AsKs2c3d", "2d7c4s8c"], "QsJsTs4h9c")
    wager(ann, live_table, "a1")
    wager(bob, live_table, "b1")
    view = live_table_view(table_id=live_table.pk, user=ann)
    seats = {seat["seat"]: seat for seat in view["round"]["seats"]}
    assert seats[1]["hole"] == ["As", "Ks", "2c", "3d"]
    assert "hole" not in seats[2] and view["round"]["board"] == []
    # Cards as cards of their own: the commitment's hex may hold "2d" by chance.
    assert "deck" not in str(view) and not cards_in(str(view)) & {"Qs", "2d"}
    live_decide(player=ann, table_id=live_table.pk, decision="call", idempotency_key="a2")
    view = live_table_view(table_id=live_table.pk, user=bob)
    assert "decision" not in {k for s in view["round"]["seats"] if not s["you"] for k in s}
    live_decide(player=bob, table_id=live_table.pk, decision="fold", idempotency_key="b2")
    view = live_table_view(table_id=live_table.pk, user=bob)
    seats = {seat["seat"]: seat for seat in view["round"]["seats"]}
    assert seats[1]["hole"] == ["As", "Ks", "2c", "3d"] and seats[1]["decision"] == "call"
    assert view["round"]["board"] == ["Qs", "Js", "Ts", "4h", "9c"]


def test_the_online_services_and_page_leave_live_tables_alone(live_table, deck_is, client):
    from showdown.services import round_deal, round_decide

    ann = seated(live_table, "ann", 1)
    deck_is(["AsKs2c3d"], "QsJsTs4h9c")
    mine = wager(ann, live_table, "a1")
    before = snapshot_of_books()
    with pytest.raises(ShowdownRefused) as refused:
        round_deal(player=ann, table=live_table, ante=500, idempotency_key="online-1")
    assert refused.value.code == "live_table"
    with pytest.raises(ShowdownRefused) as refused:
        round_decide(player=ann, round_id=mine.pk, decision="call", idempotency_key="online-2")
    assert refused.value.code == "unknown_round"
    assert snapshot_of_books() == before
    client.force_login(ann)
    assert client.get(f"/showdown/{live_table.pk}/").status_code == 404
    assert client.get(f"/showdown/live/{live_table.pk}/").status_code == 200
    online = make_showdown_table()
    assert client.get(f"/showdown/live/{online.pk}/").status_code == 404
    assert f'href="/showdown/live/{live_table.pk}/"' in client.get("/").content.decode()


@pytest.mark.django_db(transaction=True)
def test_wagers_racing_to_open_a_round_join_one_round():
    import threading

    table = make_showdown_table(seats=7, bet_seconds=60)
    players = [seated(table, f"racer{n}", n) for n in range(1, 5)]
    make_funded_player("watcher")
    barrier = threading.Barrier(len(players))
    errors: list[Exception] = []

    def place(player) -> None:
        try:
            barrier.wait()
            wager(player, table, f"race-{player.pk}")
        except Exception as error:  # reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=place, args=(p,)) for p in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    live = LiveRound.objects.get()
    assert live.phase == LiveRound.Phase.DECIDING  # all four seated placed: dealt at once
    assert sorted(live.seat_rounds.values_list("live_seat", flat=True)) == [1, 2, 3, 4]
    assert in_play() == 4 * 500
    assert_books_balance()


def test_a_self_excluded_player_leaves_at_once_or_when_the_round_with_their_wagers_settles(
    live_table, deck_is
):
    from responsible.services import exclusion_start

    ann, bob = seated(live_table, "ann", 1), seated(live_table, "bob", 2)
    cat = seated(live_table, "cat", 3)
    deck_is(["AsKs2c3d", "2d7c4s8c"], "QsJsTs4h9c")
    start = timezone.now()
    wager(ann, live_table, "a1", now=start)
    wager(bob, live_table, "b1", now=start)
    live = LiveRound.objects.get()
    live_round_advance(round_id=live.pk, phase="betting", now=live.bet_deadline)

    exclusion_start(player=cat, kind="time_out", length=1)  # no wagers in play: gone now
    exclusion_start(player=bob, kind="time_out", length=1)  # the round holds bob's Ante
    assert list(LiveSeat.objects.values_list("player__username", "leave_pending")) == [
        ("ann", False),
        ("bob", True),
    ]
    with pytest.raises(Refused):
        wager(bob, live_table, "b2")

    live.refresh_from_db()
    live_decide(player=ann, table_id=live_table.pk, decision="call", idempotency_key="a2")
    assert live_round_advance(round_id=live.pk, phase="deciding", now=live.action_deadline)
    assert ShowdownRound.objects.get(player=bob).decision == "fold"
    assert list(LiveSeat.objects.values_list("player__username", flat=True)) == ["ann"]
    assert in_play() == 0
    assert_books_balance()


# The deadlines hold in the services themselves, not only through the timers: with no worker
# running, a late Ante or decision is refused, and the round moves on as its timer would.
def test_an_ante_after_the_betting_window_closed_is_refused_and_the_round_dealt(
    live_table, deck_is
):
    ann, bob = seated(live_table, "ann", 1), seated(live_table, "bob", 2)
    deck_is(["AsKs2c3d"], "QsJsTs4h9c")
    start = timezone.now() - timedelta(seconds=20)
    wager(ann, live_table, "a1", now=start)  # the window closed 5 seconds ago; no timer ran
    with pytest.raises(ShowdownRefused) as refused:
        wager(bob, live_table, "b1")
    assert refused.value.code == "round_dealt"
    assert wallet_balance(player=bob) == START
    assert not ShowdownRound.objects.filter(player=bob).exists()
    live = LiveRound.objects.get()
    assert live.phase == LiveRound.Phase.DECIDING  # dealt as the timer would have
    assert live.seat_rounds.get().player == ann
    assert_books_balance()


def test_an_ante_just_inside_the_window_is_taken(live_table, deck_is):
    ann, bob = seated(live_table, "ann", 1), seated(live_table, "bob", 2)
    deck_is(["AsKs2c3d", "2d7c4s8c"], "QsJsTs4h9c")
    start = timezone.now() - timedelta(seconds=10)
    wager(ann, live_table, "a1", now=start)
    wager(bob, live_table, "b1")
    assert ShowdownRound.objects.filter(player=bob).exists()


def test_a_raise_after_the_decision_deadline_is_refused_and_the_undecided_fold(live_table, deck_is):
    ann, bob = seated(live_table, "ann", 1), seated(live_table, "bob", 2)
    deck_is(["AsKs2c3d", "2d7c4s8c"], "QsJsTs4h9c")
    start = timezone.now() - timedelta(seconds=40)
    wager(ann, live_table, "a1", now=start)
    wager(bob, live_table, "b1", now=start)  # both in: dealt at `start`, 20 s to decide
    live = LiveRound.objects.get()
    assert live.action_deadline < timezone.now()
    with pytest.raises(ShowdownRefused) as refused:
        live_decide(player=ann, table_id=live_table.pk, decision="raise", idempotency_key="a2")
    assert refused.value.code == "decision_late"
    ann_round = ShowdownRound.objects.get(player=ann)
    # Folded as at the deadline: no Bet, the Ante lost, however strong the hand.
    assert (ann_round.decision, ann_round.bet, ann_round.net) == ("fold", 0, -500)
    assert wallet_balance(player=ann) == START - 500
    assert LiveRound.objects.get().phase == LiveRound.Phase.SETTLED
    assert in_play() == 0
    assert_books_balance()


def test_a_decision_just_before_the_deadline_is_taken(live_table, deck_is):
    ann, bob = seated(live_table, "ann", 1), seated(live_table, "bob", 2)
    deck_is(["AsKs2c3d", "2d7c4s8c"], "QsJsTs4h9c")
    start = timezone.now() - timedelta(seconds=15)
    wager(ann, live_table, "a1", now=start)
    wager(bob, live_table, "b1", now=start)
    mine = live_decide(player=ann, table_id=live_table.pk, decision="raise", idempotency_key="a2")
    assert (mine.decision, mine.bet) == ("raise", 1000)


def test_the_view_names_players_by_their_display_names_only(live_table, deck_is):
    """Every viewer, spectators included, sees display names, never logins."""
    from django.contrib.auth.models import AnonymousUser

    from accounts.models import Profile

    ann, bob = seated(live_table, "ann", 1), seated(live_table, "bob", 2)
    for player, shown in ((ann, "Annie"), (bob, "Bobby")):
        Profile.objects.update_or_create(user=player, defaults={"display_name": shown})
    deck_is(["AsKs2c3d", "2d7c4s8c"], "QsJsTs4h9c")
    wager(ann, live_table, "a1")
    wager(bob, live_table, "b1")
    for viewer in (ann, AnonymousUser()):
        view = live_table_view(table_id=live_table.pk, user=viewer)
        names = [seat["player"] for seat in view["seats"] + view["round"]["seats"]]
        assert sorted(set(names)) == ["Annie", "Bobby"]
    assert live_table_view(table_id=live_table.pk, user=ann)["you"]["player"] == "Annie"


# -- away seats: who the lobby counts, and who the table stands up (docs/rules.md)


def page_opened(player, table, socket="tab-1") -> None:
    live_connection_set(player=player, table_id=table.pk, connected=True, socket=socket)


def page_closed(player, table, socket="tab-1") -> None:
    live_connection_set(player=player, table_id=table.pk, connected=False, socket=socket)


def lobby_row(table) -> tuple[int, int, int]:
    """(seats taken, players who can play, the others) as the lobby shows the table."""
    row = tables_for_lobby().get(pk=table.pk)
    return row.seats_taken, row.seats_playing, row.seats_out


def test_the_lobby_counts_live_seats_with_a_page_open_or_wagers_in_play(live_table, deck_is):
    """A live table showed 3/7 after all three of its players closed their tabs (issue 38)."""
    ann, bob, cat = (seated(live_table, n, s) for n, s in (("ann", 1), ("bob", 3), ("cat", 6)))
    assert lobby_row(live_table) == (3, 0, 3)  # seated, and no page of theirs open yet
    for player in (ann, bob, cat):
        page_opened(player, live_table)
    assert lobby_row(live_table) == (3, 3, 0)
    page_opened(bob, live_table, socket="tab-2")  # a reload: the new page says hello first,
    page_closed(bob, live_table, socket="tab-1")  # the old one's goodbye comes after it
    assert lobby_row(live_table) == (3, 3, 0)
    deck_is(["AsKs2c3d"], "QsJsTs4h9c")
    wager(ann, live_table, "a1")
    for player, socket in ((ann, "tab-1"), (bob, "tab-2"), (cat, "tab-1")):
        page_closed(player, live_table, socket=socket)
    assert lobby_row(live_table) == (3, 1, 2)  # Ann's Ante is in the round being played
    live = LiveRound.objects.get()
    live_round_advance(round_id=live.pk, phase="betting", now=live.bet_deadline)
    live.refresh_from_db()
    live_round_advance(round_id=live.pk, phase="deciding", now=live.action_deadline)
    assert lobby_row(live_table) == (3, 0, 3)


def test_a_seat_away_past_the_limit_stands_up_after_any_round_holding_its_wagers(
    live_table, deck_is
):
    """No page open and no wager placed for `away_limit_seconds`: the table's owner stands
    the seat up, from its timer or the sweep; wagers in play settle first. No money moves."""
    from audit.models import AuditRecord

    ann, bob = seated(live_table, "ann", 1), seated(live_table, "bob", 2)
    for player in (ann, bob):
        page_opened(player, live_table)
        page_closed(player, live_table)
    gone = LiveSeat.objects.get(player=bob).away_since
    bob_seat = LiveSeat.objects.get(player=bob).pk
    limit = timedelta(seconds=live_table.away_limit_seconds)
    assert live_table.away_limit_seconds == 300
    deck_is(["AsKs2c3d"], "QsJsTs4h9c")
    wager(ann, live_table, "a1", now=gone + timedelta(seconds=200))  # her clock starts again
    assert live_seat_away_stand(table_id=live_table.pk, seat_id=bob_seat, now=gone) == "not_yet"
    assert live_seats_away_sweep(now=gone + limit) == {"stood_up": 1}  # Bob, not Ann yet
    assert list(LiveSeat.objects.values_list("player__username", "leave_pending")) == [
        ("ann", False)
    ]
    assert wallet_balance(player=bob) == START
    # Ann's Ante is in the round: she stands up when it settles (folded at its deadline).
    assert live_seats_away_sweep(now=gone + limit + timedelta(seconds=200)) == {"stood_up": 1}
    assert list(LiveSeat.objects.values_list("leave_pending", flat=True)) == [True]
    live = LiveRound.objects.get()
    live_round_advance(round_id=live.pk, phase="betting", now=live.bet_deadline)
    live.refresh_from_db()
    live_round_advance(round_id=live.pk, phase="deciding", now=live.action_deadline)
    assert not LiveSeat.objects.exists()
    assert wallet_balance(player=ann) == START - 500
    records = AuditRecord.objects.filter(action="showdown.live_seat_away").order_by("pk")
    assert [(r.payload["seat"], r.payload["after_round"]) for r in records] == [
        (2, False),
        (1, True),
    ]
    assert_books_balance()


def test_an_away_seat_s_timer_stands_it_up_once_and_a_player_back_keeps_it(live_table):
    ann, bob = seated(live_table, "ann", 1), seated(live_table, "bob", 2)
    page_opened(bob, live_table)  # Bob's page is open; Ann's never opened
    LiveSeat.objects.update(away_since=timezone.now() - timedelta(seconds=301))
    ann_seat, bob_seat = (LiveSeat.objects.get(player=p).pk for p in (ann, bob))
    fire = lambda seat: timeout_fire("showdown.away", live_table.pk, seat, 0, 0.0)  # noqa: E731
    assert fire(bob_seat) == "moved_on"
    assert fire(ann_seat) == "stood_up"
    assert fire(ann_seat) == "moved_on"
    assert list(LiveSeat.objects.values_list("player__username", flat=True)) == ["bob"]


def test_lobby_pages_hear_live_seats_taken_away_back_and_stood_up(live_table, lobby_hears):
    ann = make_funded_player("ann", cents=START)

    def heard(seats_taken: int, seats_playing: int) -> list[dict]:
        update = {"table": live_table.pk, "seats_taken": seats_taken}
        return [{**update, "seats_playing": seats_playing, "kind": "showdown"}]

    sit = lambda: live_seat_take(player=ann, table_id=live_table.pk, seat=1)  # noqa: E731
    assert lobby_hears(sit) == heard(1, 0)
    assert lobby_hears(lambda: page_opened(ann, live_table)) == heard(1, 1)
    assert lobby_hears(lambda: page_opened(ann, live_table, socket="tab-2")) == []
    assert lobby_hears(lambda: page_closed(ann, live_table, socket="tab-2")) == heard(1, 0)
    LiveSeat.objects.update(away_since=timezone.now() - timedelta(seconds=301))
    assert lobby_hears(live_seats_away_sweep) == heard(0, 0)
