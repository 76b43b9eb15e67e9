"""The session length limit's timer and its sweep (docs/rules.md "Session length limit").

A session that starts under a limit, or a limit set during one, sets a `config.timeouts`
timeout at the moment the session reaches it (`rules.play_session_touch`); the handler ends
the session if it is still the one the timer was set for and still due, so a duplicated,
late or stale timer changes nothing. The beat's sweep ends sessions whose timer was lost."""

from celery import shared_task
from django.contrib.auth import get_user_model

from config.timeouts import Timeout
from responsible import services


def session_limit_timeout(timeout: Timeout) -> str:
    """The session `timeout.step` (its start) of player `timeout.ref_id` reaches its limit."""
    player = get_user_model().objects.filter(pk=timeout.ref_id).first()
    if player is None:
        return "gone"
    ended = services.session_limit_reach(player=player, started=str(timeout.step))
    return "ended" if ended else "nothing"


@shared_task(name="responsible.sweep_session_limits", ignore_result=True)
def sweep_session_limits() -> int:
    """Every RESPONSIBLE_SESSION_SWEEP_SECONDS: sessions past their limit, not yet ended."""
    return services.session_limits_sweep()
