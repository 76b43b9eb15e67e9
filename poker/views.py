"""Table pages and the waiting-list forms. Thin: the page is a shell; the table itself arrives
over the table's socket; the forms call services."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from poker import services
from poker.commands import WaitingJoin, WaitingLeave
from poker.dispatch import command_at_the_owner
from poker.engine.views import RUNOUT_PAGE_SECONDS
from poker.guides import guide_for
from poker.models import Table
from poker.owner import table_route
from poker.selectors import table_bar_of
from poker.services.bars import bar_message


@login_required
def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    """The page a player plays at; seats, cards and buttons are drawn by static/js/table.js."""
    table = get_object_or_404(Table, pk=table_id)
    profile = getattr(request.user, "profile", None)
    config = {
        "table_id": table.pk,
        "ws_path": f"/ws/tables/{table.pk}/",
        # The process the front should send the socket to: the table's owner (a hint).
        "ws_node": table_route(table.pk),
        "user_id": request.user.pk,
        "display_name": getattr(profile, "display_name", "") or request.user.get_username(),
        # Where a player whose wallet cannot cover the buy-in goes to deposit.
        "cashier_url": reverse("cashier:home"),
        # The all-in runout's pace, scaled as the server's wait for it is (config/settings.py).
        "runout_ms": round(RUNOUT_PAGE_SECONDS * 1000 * settings.POKER_SHOWDOWN_PAUSE_SCALE),
    }
    guide = guide_for(game=table.game, structure=table.structure)
    # This game's rules page (the sit dialog links its ratholing section).
    config["rules_url"] = reverse("lobby:help_game", args=[guide.slug])
    # Removed by staff: why the player cannot sit here, and until when.
    bar = table_bar_of(table=table, player=request.user)
    # A Sit & Go's table links its tournament's page (the reverse of Tournament.table).
    tournament_id = (
        type(table).objects.filter(pk=table.pk).values_list("tournament__id", flat=True).first()
        if table.is_tournament
        else None
    )
    if tournament_id is not None:  # where the page sends its player once the table closes
        config["tournament_url"] = reverse("tournaments:sit_and_go", args=[tournament_id])
    return render(
        request,
        "poker/table.html",
        {
            "table": table,
            "table_config": config,
            "rules_url": config["rules_url"],
            "barred": bar_message(bar) if bar is not None else "",
            "tournament_id": tournament_id,
        },
    )


def _back(request: HttpRequest) -> HttpResponse:
    """To the page the form was on (a local path only), else the lobby."""
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = reverse("lobby:home")
    return redirect(target)


def _answer(request: HttpRequest, message: str, *, refused: bool = False) -> HttpResponse:
    """A script's request (Accept: JSON) gets JSON; a form gets the message and a redirect."""
    if "application/json" in request.headers.get("Accept", ""):
        return JsonResponse({"ok": not refused, "message": message}, status=409 if refused else 200)
    (messages.error if refused else messages.success)(request, message)
    return _back(request)


@login_required
@require_POST
def waiting_join(request: HttpRequest, table_id: int) -> HttpResponse:
    """Join a full table's waiting list from the lobby."""
    table = get_object_or_404(Table, pk=table_id)
    try:
        position = command_at_the_owner(WaitingJoin(), table.pk, request.user)
    except services.TableError as error:
        return _answer(request, error.message, refused=True)
    return _answer(
        request,
        _("You are number %(position)s on the waiting list for %(table)s.")
        % {"position": position, "table": table.name},
    )


@login_required
@require_POST
def waiting_leave(request: HttpRequest, table_id: int) -> HttpResponse:
    """Leave a waiting list, or decline the seat it offers (the next in line is offered it)."""
    table = get_object_or_404(Table, pk=table_id)
    try:
        declined = command_at_the_owner(WaitingLeave(), table.pk, request.user)
    except services.TableError as error:
        return _answer(request, error.message, refused=True)
    if declined:
        message = _("You declined the seat at %(table)s and left its waiting list.")
    else:
        message = _("You left the waiting list for %(table)s.")
    return _answer(request, message % {"table": table.name})
