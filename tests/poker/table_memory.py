"""Checks of a table's memory (poker/services/unit.py) shared by the tests of the changes
from memory and from the database: the memory against a fresh read of the database, and the engine's
replays counted."""

from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Seat, Table
from poker.services import unit

# Not part of the memory: which socket is the player's live one (a socket-only change writes
# it without a new version; the acting path never reads it).
SEAT_COLUMNS_NOT_REMEMBERED = {"socket"}


def columns(row, leave_out=()) -> dict:
    return {
        field.attname: getattr(row, field.attname)
        for field in type(row)._meta.concrete_fields
        if field.attname not in leave_out
    }


def assert_memory_is_the_database(table: Table) -> unit.TableMemory:
    """The table's memory, checked column for column against a fresh read (and its engine
    against the hand rebuilt from its stored setup, deck and events)."""
    memory = unit.memory_peek(table.pk)
    assert memory is not None, "the change left the table in memory"
    assert memory.version == Table.objects.get(pk=table.pk).version
    stored = {seat.number: seat for seat in Seat.objects.filter(table=table)}
    assert sorted(memory.seats) == sorted(stored)
    for number, seat in stored.items():
        assert columns(memory.seats[number], SEAT_COLUMNS_NOT_REMEMBERED) == columns(
            seat, SEAT_COLUMNS_NOT_REMEMBERED
        ), f"seat {number}"
        assert memory.seats[number].player.pk == seat.player_id
    if memory.hand_known:
        running = Hand.objects.with_deck().filter(table=table, status="running").first()
        if memory.hand is None:
            assert running is None
        else:
            assert running is not None
            assert columns(memory.hand) == columns(running)
            players = {
                n: (p.player_id, p.last_seq, p.net) for n, p in running.seated_players().items()
            }
            assert {
                n: (p.player_id, p.last_seq, p.net) for n, p in memory.hand.seated_players().items()
            } == players
            assert memory.engine is not None
            assert memory.engine.to_dict() == unit.load(running).to_dict()
    return memory


def running(table: Table) -> Hand:
    hand = Hand.objects.filter(table=table, status="running").first()
    assert hand is not None
    return hand


class Replays:
    """Counts the engine's replays (`EngineHand.rebuild`, the check `load` makes)."""

    def __init__(self, monkeypatch) -> None:
        self.count = 0
        rebuild = EngineHand.rebuild.__func__

        def counted(cls, *args, **kwargs):
            self.count += 1
            return rebuild(cls, *args, **kwargs)

        monkeypatch.setattr(EngineHand, "rebuild", classmethod(counted))
