"""What every page shows a signed-in player: the seats offered to them from waiting lists
(the banner in base.html; static/js/seat_offers.js keeps it live)."""

from django.http import HttpRequest

from poker.selectors import seat_offers_of


def seat_offers(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"seat_offers": seat_offers_of(player=user)}
