"""My hands and one hand's page with its replayer. Thin: the selectors and the record read."""

from datetime import datetime
from types import SimpleNamespace

from django.contrib.auth.decorators import login_required
from django.core import signing
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from histories.forms import HandFilterForm
from histories.record import HandNotFound, hand_record
from histories.selectors import (
    hand_lines,
    hand_notes_by_seat,
    player_hands,
    player_results,
    profit_chart,
    tables_for_filter,
)
from poker.models import Table
from tournaments.selectors import tournaments_of_player

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
            "hands": hand_lines(page.object_list),
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
    token = hand_share_token(hand_id=record["id"], sharer_id=request.user.pk)
    share_url = request.build_absolute_uri(reverse("histories:shared", args=[token]))
    return render(
        request,
        "histories/hand.html",
        {
            "hand": record,
            "started_at": started_at,
            "share_url": share_url,
            **_notes_context(record, request.user),
        },
    )


def _notes_context(record: dict, viewer) -> dict:
    """The viewer's own notes on the hand's players (none for a visitor): beside the names in
    the players' table, and for the replayer's seats (`hand-notes`)."""
    by_seat = hand_notes_by_seat(hand_id=record["id"], viewer=viewer)
    return {
        "seat_rows": [(seat, by_seat.get(seat["seat"])) for seat in record["seats"]],
        "seat_notes": {str(seat): note for seat, note in by_seat.items()},
    }


# A share link is the hand and the sharer, signed with the room's secret key: nobody can make
# one for a hand that is not theirs, and it shows what the sharer's own history shows.
SHARE_SALT = "histories.hand-share"


def hand_share_token(*, hand_id: int, sharer_id: int) -> str:
    """The signed part of a share link (the hidden-card sweep makes links as players would)."""
    return signing.dumps([hand_id, sharer_id], salt=SHARE_SALT)


def hand_shared(request: HttpRequest, token: str) -> HttpResponse:
    """A hand someone shared, for anyone with the link (signed in or not): the hand as its
    sharer's history shows it (their cards, the cards shown at showdown; never another
    player's hidden cards), without the sharer's downloads."""
    try:
        hand_id, sharer_id = signing.loads(token, salt=SHARE_SALT)
        record = hand_record(hand_id=hand_id, viewer=SimpleNamespace(pk=sharer_id))
    except (signing.BadSignature, ValueError, TypeError, HandNotFound):
        raise Http404("No such shared hand.") from None
    started_at = datetime.fromisoformat(record["started_at"])
    return render(
        request,
        "histories/hand.html",
        {
            "hand": record,
            "started_at": started_at,
            "shared": True,
            **_notes_context(record, request.user),
        },
    )


@login_required
def my_results(request: HttpRequest) -> HttpResponse:
    """The player's results over time with the filters of "My hands": a profit graph (net won
    after and before rake, drawn here as SVG: no script, no CDN), totals per game and the
    sessions."""
    form = HandFilterForm(request.GET or None)
    filters = form.filters() if form.is_bound and form.is_valid() else {}
    results = player_results(player=request.user, **filters)
    return render(
        request,
        "histories/my_results.html",
        {
            "form": form,
            "tables": tables_for_filter(),
            "results": results,
            "chart": profit_chart(results["points"]),
            "game_labels": dict(Table.Game.choices),
            "tournaments": tournaments_of_player(player=request.user).totals,
        },
    )
