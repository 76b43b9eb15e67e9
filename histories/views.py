"""My hands and one hand's page with its replayer. Thin: the selectors and the record read."""

from datetime import datetime

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from histories.forms import HandFilterForm
from histories.record import HandNotFound, hand_record
from histories.selectors import hand_line, player_hands, tables_for_filter

PER_PAGE = 50


@login_required
def my_hands(request: HttpRequest) -> HttpResponse:
    """The player's hands, newest first, filtered as the form says (a bad filter is shown with
    its reason and filters nothing)."""
    form = HandFilterForm(request.GET or None)
    filters = form.filters() if form.is_bound and form.is_valid() else {}
    page = Paginator(player_hands(player=request.user, **filters), PER_PAGE).get_page(
        request.GET.get("page")
    )
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "histories/my_hands.html",
        {
            "form": form,
            "page": page,
            "hands": [hand_line(row) for row in page.object_list],
            "tables": tables_for_filter(),
            "query": query.urlencode(),
        },
    )


@login_required
def hand(request: HttpRequest, hand_id: int) -> HttpResponse:
    """One hand as the player saw it, with the replayer; another player's hand is a 404."""
    try:
        record = hand_record(hand_id=hand_id, viewer=request.user)
    except HandNotFound:
        raise Http404("No such hand among yours.") from None
    started_at = datetime.fromisoformat(record["started_at"])
    return render(request, "histories/hand.html", {"hand": record, "started_at": started_at})
