"""Table timers (RULES.md 6) as Celery tasks. Each only calls a service that re-reads the
database under the table lock, so a duplicated, late or lost task changes nothing: a turn
timeout carries its turn and does nothing once the turn has moved on, and the periodic sweep
acts on deadlines stored in the database.

No task is sent per turn: each worker's timekeeper (poker/timekeeper.py, started when the
worker is ready) sends `turn_timeout` only for turns whose deadline has passed.

Before a timer may act, the room asks its channel layer whether it can still reach the
players (config.channel_health): while it cannot, turns are held, not timed out."""

from celery import shared_task
from celery.signals import worker_ready

from config.channel_health import broadcast_healed_at
from poker import broadcast, services
from poker.models import RngCheck
from poker.rng_checks import QUICK_RAW_DRAWS, QUICK_SHUFFLES, rng_check_run
from poker.selectors import table_versions_for_heartbeat
from poker.timekeeper import timekeeper_start


@worker_ready.connect
def _timekeeper_start(**_: object) -> None:
    """Each worker keeps time for the turns of its queue (several may: each due turn is taken
    by one of them)."""
    timekeeper_start()


@shared_task(name="poker.turn_timeout", ignore_result=True)
def turn_timeout(hand_id: int, turn: int) -> str:
    """Time is up for `turn` of the hand (sent by a timekeeper): check if possible, else fold
    (if still that turn and its deadline has passed)."""
    return services.hand_turn_timeout(
        hand_id=hand_id, turn=turn, broadcast_healed_at=broadcast_healed_at()
    )


@shared_task(name="poker.start_next_hand", ignore_result=True)
def start_next_hand(table_id: int) -> bool:
    """Deal the next hand if the table is ready (a no-op otherwise)."""
    try:
        return services.table_hand_start(table=table_id) is not None
    except services.TableError:
        return False


@shared_task(name="poker.sweep_tables", ignore_result=True)
def sweep_tables() -> dict:
    """Every few seconds: overdue turns, stuck hands, hands due to start, sitters-out past
    the limit."""
    return services.tables_sweep(broadcast_healed_at=broadcast_healed_at())


@shared_task(name="poker.tables_heartbeat", ignore_result=True)
def tables_heartbeat() -> int:
    """Every POKER_HEARTBEAT_SECONDS: each table's version to its sockets through its group,
    so a page can tell a silent socket from a quiet table. Returns how many tables."""
    versions = table_versions_for_heartbeat()
    broadcast.send_heartbeats(versions)
    return len(versions)


@shared_task(name="poker.rng_check_daily", ignore_result=True)
def rng_check_daily() -> bool:
    """Once a day: the quick form of the RNG battery on `secrets`, stored as an RngCheck
    (staff see it in the admin; a failure is also logged as an error). Returns the verdict."""
    return rng_check_run(
        shuffles=QUICK_SHUFFLES, raw_draws=QUICK_RAW_DRAWS, form=RngCheck.Form.QUICK
    ).passed
