"""The bot signals read from a player's hands alone: play around the clock without a break and
tables at once (no database: the tally is fed directly)."""

from datetime import UTC, datetime, timedelta

from integrity.models import Signal
from integrity.selectors import Tally, bot_signals

START = datetime(2026, 12, 1, tzinfo=UTC)


def _signals(plays) -> dict[str, float]:
    tally = Tally()
    tally.players[7].plays = plays
    return {found.kind: found for found in bot_signals(tally, 7)}


def _hands(table: int, hours: float, *, every: int = 2, since: timedelta = timedelta(0)):
    count = int(hours * 60 / every)
    return [
        (table, START + since + timedelta(minutes=every * k),
         START + since + timedelta(minutes=every * k + 1), 1000 * table + k)
        for k in range(count)
    ]  # fmt: skip


def test_twelve_hours_without_a_break_scores_and_a_break_splits_the_stretch(settings):
    settings.INTEGRITY_BREAK_MINUTES, settings.INTEGRITY_HOURS_WITHOUT_BREAK = 15, 10
    found = _signals(_hands(1, 12))[Signal.Kind.NO_BREAKS]
    assert 11.9 < found.figure < 12.1 and found.score > 0.4
    # Six hours, a 20-minute break, six hours: no stretch past the limit.
    split = _hands(1, 6) + _hands(1, 6, since=timedelta(hours=6, minutes=20))
    assert _signals(split)[Signal.Kind.NO_BREAKS].score == 0


def test_tables_at_once_past_the_setting_score_one_each(settings):
    settings.INTEGRITY_TABLES_AT_ONCE = 2
    found = _signals([hand for table in (1, 2, 3, 4) for hand in _hands(table, 1)])
    assert found[Signal.Kind.TABLES_AT_ONCE].figure == 4
    assert found[Signal.Kind.TABLES_AT_ONCE].score == 2.0
    assert _signals(_hands(1, 1) + _hands(2, 1))[Signal.Kind.TABLES_AT_ONCE].score == 0
