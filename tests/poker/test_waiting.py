"""Waiting lists and "join a game" (RULES.md 5): the services under the table lock,
on PostgreSQL. What reaches the players' pages is tested in test_waiting_sockets.py and in
Chromium (test_waiting_page.py)."""

import random
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from poker import services
from poker.engine.hand import Hand as EngineHand
from poker.models import Seat, Table, WaitingEntry
from poker.selectors import (
    GameKind,
    game_kinds_open,
    lobby_tables,
    seat_offers_of,
    table_state_for,
    waiting_places_of,
    waiting_position,
)
from poker.services import TableError
from tests.factories import call_down, deal_hand, make_funded_player, make_seated_player, make_table

pytestmark = pytest.mark.django_db


def full_table(seats: int = 2, **overrides):
    """A table of `seats` seats, all taken (by p1, p2, ...)."""
    table = make_table(max_seats=seats, next_hand_delay_seconds=3600, **overrides)
    players = [make_seated_player(table, f"{table.pk}p{n}", n) for n in range(1, seats + 1)]
    return table, players


def sit(table, player, seat: int, key: str | None = None):
    """Sit with the maximum buy-in; `key` names the request (another key: another click)."""
    return services.table_sit(
        table=table,
        player=player,
        seat_number=seat,
        buy_in=table.max_buy_in,
        post_big_blind=False,
        idempotency_key=key or f"sit-{player.pk}-{table.pk}-{seat}",
    )


def offer_of(table, player):
    entry = WaitingEntry.objects.get(table=table, player=player)
    return entry.offer_expires_at


def test_a_player_joins_a_full_tables_list_and_sees_their_place():
    table, _ = full_table()
    cat, dan = make_funded_player("cat"), make_funded_player("dan")
    assert services.waiting_list_join(table=table, player=cat) == 1
    assert services.waiting_list_join(table=table, player=dan) == 2
    assert services.waiting_list_join(table=table, player=cat) == 1  # again: nothing changes
    assert waiting_position(table=table, player=dan) == 2
    assert WaitingEntry.objects.filter(table=table).count() == 2
    state = table_state_for(table=table, player=dan)
    assert state["waiting"] == {"count": 2, "offered": 0}
    assert state["you"]["waiting"] == {"position": 2, "offer_expires_at": None}
    assert table_state_for(table=table, player=None)["you"] is None


def test_a_player_may_wait_at_several_tables_and_leave_any_list():
    first, _ = full_table()
    second, _ = full_table()
    cat = make_funded_player("cat")
    services.waiting_list_join(table=first, player=cat)
    services.waiting_list_join(table=second, player=cat)
    assert waiting_places_of(player=cat) == {first.pk: 1, second.pk: 1}
    services.waiting_list_leave(table=first, player=cat)
    assert waiting_places_of(player=cat) == {second.pk: 1}
    with pytest.raises(TableError) as refused:
        services.waiting_list_leave(table=first, player=cat)
    assert refused.value.code == "not_waiting"


def test_a_seated_player_cannot_join_the_list_of_their_own_table():
    table, (ann, _) = full_table()
    with pytest.raises(TableError) as refused:
        services.waiting_list_join(table=table, player=ann)
    assert refused.value.code == "already_seated"


def test_a_closed_table_has_no_list():
    table, _ = full_table()
    Table.objects.filter(pk=table.pk).update(is_open=False)
    with pytest.raises(TableError) as refused:
        services.waiting_list_join(table=table, player=make_funded_player("cat"))
    assert refused.value.code == "table_closed"


def test_joining_a_table_with_a_free_seat_offers_it_at_once():
    table = make_table(max_seats=2)
    cat = make_funded_player("cat")
    services.waiting_list_join(table=table, player=cat)
    assert offer_of(table, cat) is not None
    assert seat_offers_of(player=cat)[0]["table"] == table.pk


def test_a_freed_seat_is_offered_to_the_first_in_line_and_held_for_them():
    table, (ann, _) = full_table()
    cat, dan, eve = (make_funded_player(name) for name in ("cat", "dan", "eve"))
    services.waiting_list_join(table=table, player=cat)
    services.waiting_list_join(table=table, player=dan)
    before = timezone.now()
    services.table_leave(table=table, player=ann)
    expires_at = offer_of(table, cat)
    assert expires_at is not None and offer_of(table, dan) is None
    assert (
        before + timedelta(seconds=table.seat_offer_seconds)
        <= expires_at
        <= timezone.now() + timedelta(seconds=table.seat_offer_seconds)
    )
    # The seat is held: neither someone from outside nor the second in line may take it.
    for player in (eve, dan):
        with pytest.raises(TableError) as refused:
            sit(table, player, 1)
        assert refused.value.code == "seat_offered"
    assert not Seat.objects.filter(table=table, number=1).exists()
    state = table_state_for(table=table, player=eve)
    assert state["waiting"] == {"count": 2, "offered": 1}
    # Cat takes it, and so leaves the list; Dan moves up.
    sit(table, cat, 1)
    assert not WaitingEntry.objects.filter(player=cat).exists()
    assert waiting_position(table=table, player=dan) == 1


def test_a_declined_offer_goes_to_the_next_in_line():
    table, (ann, _) = full_table()
    cat, dan = make_funded_player("cat"), make_funded_player("dan")
    ed = make_funded_player("ed")
    for player in (cat, dan, ed):
        services.waiting_list_join(table=table, player=player)
    assert services.waiting_list_leave(table=table, player=ed) is False  # left, no offer
    services.table_leave(table=table, player=ann)
    assert services.waiting_list_leave(table=table, player=cat) is True  # declines
    assert not WaitingEntry.objects.filter(player=cat).exists()
    assert offer_of(table, dan) is not None


def test_an_offer_let_pass_goes_to_the_next_in_line_when_the_sweep_comes():
    table, (ann, _) = full_table(seat_offer_seconds=5)
    cat, dan = make_funded_player("cat"), make_funded_player("dan")
    services.waiting_list_join(table=table, player=cat)
    services.waiting_list_join(table=table, player=dan)
    services.table_leave(table=table, player=ann)
    assert services.tables_sweep()["offers"] == 0  # not due yet
    assert offer_of(table, cat) is not None
    later = timezone.now() + timedelta(seconds=6)
    assert services.tables_sweep(now=later)["offers"] == 1
    assert not WaitingEntry.objects.filter(player=cat).exists()
    assert offer_of(table, dan) is not None
    with pytest.raises(TableError):
        sit(table, cat, 1)  # too late: the seat is Dan's now


def test_an_offer_past_its_time_is_gone_before_anyone_sits_even_without_the_sweep():
    table, (ann, _) = full_table(seat_offer_seconds=1)
    cat, eve = make_funded_player("cat"), make_funded_player("eve")
    services.waiting_list_join(table=table, player=cat)
    services.table_leave(table=table, player=ann)
    WaitingEntry.objects.filter(player=cat).update(
        offer_expires_at=timezone.now() - timedelta(seconds=1)
    )
    sit(table, eve, 1)  # nobody else waits: the seat is anyone's
    assert not WaitingEntry.objects.filter(table=table).exists()


def test_two_seats_freeing_at_once_are_offered_to_the_first_two():
    table, (ann, ben, _) = full_table(3)
    cat, dan, eve = (make_funded_player(name) for name in ("cat", "dan", "eve"))
    for player in (cat, dan, eve):
        services.waiting_list_join(table=table, player=player)
    services.table_leave(table=table, player=ann)
    services.table_leave(table=table, player=ben)
    assert offer_of(table, cat) and offer_of(table, dan) and offer_of(table, eve) is None
    sit(table, dan, 2)  # the second may take either held seat before the first
    sit(table, cat, 1)
    assert offer_of(table, eve) is None
    assert table_state_for(table=table, player=eve)["waiting"] == {"count": 1, "offered": 0}


def test_a_player_leaving_mid_hand_frees_the_seat_when_the_hand_ends():
    table, (ann, ben) = full_table()
    cat = make_funded_player("cat")
    services.waiting_list_join(table=table, player=cat)
    hand = deal_hand(table)
    waiting_for = EngineHand.from_dict(hand.state).to_act
    leaver = ben if waiting_for == 1 else ann  # not to act: their leaving ends nothing yet
    services.table_leave(table=table, player=leaver)  # dealt in: leaves when the hand ends
    assert offer_of(table, cat) is None
    call_down(hand, {1: ann, 2: ben})
    assert offer_of(table, cat) is not None


def test_an_offer_accepted_in_two_tabs_seats_the_player_once():
    table, (ann, _) = full_table()
    cat = make_funded_player("cat")
    services.waiting_list_join(table=table, player=cat)
    services.table_leave(table=table, player=ann)
    sit(table, cat, 1)
    with pytest.raises(TableError) as refused:
        sit(table, cat, 1, key="the-other-tab")
    assert refused.value.code == "already_seated"
    assert Seat.objects.filter(table=table, player=cat).count() == 1


def race(*calls) -> list[str]:
    """Run the calls at once on threads of their own; each outcome "done" or the refusal code."""
    outcomes: list[str] = []
    start = threading.Barrier(len(calls))

    def run(call):
        start.wait()
        try:
            call()
            outcomes.append("done")
        except TableError as error:
            outcomes.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(outcomes)


@pytest.mark.django_db(transaction=True)
def test_an_offer_taken_in_two_tabs_at_once_seats_the_player_once():
    table, (ann, _) = full_table()
    cat = make_funded_player("cat")
    services.waiting_list_join(table=table, player=cat)
    services.table_leave(table=table, player=ann)

    def take(key):
        return lambda: sit(table, cat, 1, key=key)

    assert race(take("tab-one-key"), take("tab-two-key")) == ["already_seated", "done"]
    assert Seat.objects.filter(table=table, player=cat).count() == 1
    assert not WaitingEntry.objects.filter(player=cat).exists()


@pytest.mark.django_db(transaction=True)
def test_a_player_leaving_the_list_while_their_offer_is_taken_up_elsewhere_changes_it_once():
    """Race: Cat declines in one tab while sitting in another. The table lock orders them;
    whichever comes second finds nothing to do (or the seat gone) and changes nothing."""
    table, (ann, _) = full_table()
    cat, dan = make_funded_player("cat"), make_funded_player("dan")
    services.waiting_list_join(table=table, player=cat)
    services.waiting_list_join(table=table, player=dan)
    services.table_leave(table=table, player=ann)
    outcomes = race(
        lambda: sit(table, cat, 1),
        lambda: services.waiting_list_leave(table=table, player=cat),
    )
    assert not WaitingEntry.objects.filter(player=cat).exists()
    seated = Seat.objects.filter(table=table, player=cat).exists()
    if seated:  # the sit came first: the leave found her on no list
        assert outcomes == ["done", "not_waiting"]
        assert offer_of(table, dan) is None
    else:  # the decline came first: the seat went to Dan, her sit was refused
        assert outcomes == ["done", "seat_offered"]
        assert offer_of(table, dan) is not None


def test_closing_the_table_ends_its_list():
    from poker.services.staff import staff_table_close
    from tests.factories import make_staff

    table, _ = full_table()
    cat = make_funded_player("cat")
    services.waiting_list_join(table=table, player=cat)
    staff = make_staff("boss", "table managers")
    staff_table_close(table=table, staff=staff, reason="maintenance tonight")
    assert not WaitingEntry.objects.filter(table=table).exists()


def test_the_lobby_counts_who_waits_and_shows_each_player_their_place():
    table, (ann, _) = full_table()
    cat, dan = make_funded_player("cat"), make_funded_player("dan")
    services.waiting_list_join(table=table, player=cat)
    services.waiting_list_join(table=table, player=dan)
    row = next(t for t in lobby_tables(player=dan) if t.pk == table.pk)
    assert (row.waiting_count, row.is_full, row.waiting_place, row.is_mine) == (2, True, 2, False)
    row = next(t for t in lobby_tables(player=ann) if t.pk == table.pk)
    assert (row.is_mine, row.waiting_place) == (True, None)
    services.table_leave(table=table, player=ann)  # the free seat is held for Cat
    row = next(t for t in lobby_tables(player=dan) if t.pk == table.pk)
    assert (row.seats_taken, row.seats_offered, row.is_full) == (1, 1, True)


# ------------------------------------------------------------------ "join a game"


def kind_of(table) -> GameKind:
    return GameKind(table.game, table.structure, (table.small_blind, table.big_blind))


def played_at(table, player, partner) -> None:
    """`player` was dealt one whole hand at `table` (with `partner`), then both left."""
    sit(table, player, 1)
    sit(table, partner, 2)
    hand = deal_hand(table)
    call_down(hand, {1: player, 2: partner})
    services.table_leave(table=table, player=player)
    services.table_leave(table=table, player=partner)


def test_join_a_game_prefers_a_table_played_at_before_then_the_fewest_players():
    stakes = {"small_blind": 25, "big_blind": 50}
    busy = make_table(name="Busy", next_hand_delay_seconds=3600, **stakes)
    quiet = make_table(name="Quiet", next_hand_delay_seconds=3600, **stakes)
    known = make_table(name="Known", next_hand_delay_seconds=3600, **stakes)
    other_game = make_table(name="Hi-Lo", game=Table.Game.OMAHA8, **stakes)
    for n in (1, 2, 3):
        make_seated_player(busy, f"busy{n}", n)
    cat, partner = make_funded_player("cat"), make_funded_player("partner")
    played_at(known, cat, partner)
    for n in (3, 4, 5):
        make_seated_player(known, f"known{n}", n)
    kind = kind_of(busy)
    # "Known", played at before, comes first though it has the most players.
    joined = services.table_join_any(player=cat, kind=kind, rng=random.Random(1))
    assert joined.table == known and joined.seat == 1 and joined.position is None
    # Someone else never played anywhere: the emptiest table of the kind, never another game.
    dan = make_funded_player("dan")
    joined = services.table_join_any(player=dan, kind=kind, rng=random.Random(1))
    assert joined.table == quiet and joined.seat == 1
    assert other_game.pk != joined.table.pk


def test_join_a_game_breaks_ties_at_random():
    stakes = {"small_blind": 10, "big_blind": 20}
    tables = {make_table(name=f"Tie {n}", **stakes).pk for n in range(3)}
    cat = make_funded_player("cat")
    kind = GameKind(Table.Game.OMAHA, Table.Structure.POT_LIMIT, (10, 20))
    chosen = {
        services.table_join_any(player=cat, kind=kind, rng=random.Random(seed)).table.pk
        for seed in range(30)
    }
    assert chosen == tables


def test_join_a_game_with_every_table_full_joins_the_shortest_list():
    stakes = {"small_blind": 5, "big_blind": 10}
    long_queue, _ = full_table(**stakes)
    short_queue, _ = full_table(**stakes)
    for name in ("q1", "q2"):
        services.waiting_list_join(table=long_queue, player=make_funded_player(name))
    services.waiting_list_join(table=short_queue, player=make_funded_player("q3"))
    cat = make_funded_player("cat")
    joined = services.table_join_any(player=cat, kind=kind_of(long_queue))
    assert joined.table == short_queue and joined.position == 2 and joined.seat is None
    assert waiting_position(table=short_queue, player=cat) == 2


def test_join_a_game_takes_a_seated_player_back_to_their_table_and_refuses_an_unknown_kind():
    table, (ann, _) = full_table()
    joined = services.table_join_any(player=ann, kind=kind_of(table))
    assert joined.table == table and joined.seat is None and joined.position is None
    with pytest.raises(TableError) as refused:
        services.table_join_any(
            player=ann, kind=GameKind(Table.Game.OMAHA, Table.Structure.POT_LIMIT, (7, 14))
        )
    assert refused.value.code == "no_table"
    assert GameKind.parse("nonsense") is None
    assert GameKind.parse(kind_of(table).key) == kind_of(table)


def test_the_join_form_lists_each_open_kind_once():
    make_table(name="A", small_blind=50, big_blind=100)
    make_table(name="B", small_blind=50, big_blind=100)
    make_table(name="C", small_blind=100, big_blind=200)
    make_table(name="Shut", small_blind=200, big_blind=400, is_open=False)
    keys = [kind.key for kind, _ in game_kinds_open()]
    assert sorted(keys) == sorted({"omaha:pot-limit:50:100", "omaha:pot-limit:100:200"})


def test_an_excluded_player_leaves_every_list_and_cannot_join_one():
    """A time-out or self-exclusion stops play, waiting lists included; a seat held
    for the player goes to the next in line."""
    from responsible.services import exclusion_start

    table, (ann, _) = full_table()
    cat, dan = make_funded_player("cat"), make_funded_player("dan")
    services.waiting_list_join(table=table, player=cat)
    services.waiting_list_join(table=table, player=dan)
    services.table_leave(table=table, player=ann)
    assert offer_of(table, cat) is not None
    exclusion_start(player=cat, kind="time_out", length=1)
    assert not WaitingEntry.objects.filter(player=cat).exists()
    assert offer_of(table, dan) is not None
    with pytest.raises(TableError) as refused:
        services.waiting_list_join(table=table, player=cat)
    assert refused.value.code == "excluded"
