"""What every page shows a player on a time-out or self-exclusion: the banner of base.html,
and no controls to sit, deal, wager or deposit that the server would refuse after a click."""

from django.http import HttpRequest

from responsible.rules import exclusion_active


def play_exclusion(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"play_exclusion": exclusion_active(player=user)}
