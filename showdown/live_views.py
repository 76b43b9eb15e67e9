"""The live Showdown table's page: a shell the socket fills (static/js/showdown_live.js)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from poker.owner import table_route
from showdown.models import ShowdownTable


@login_required
def live_table(request: HttpRequest, table_id: int) -> HttpResponse:
    table = (
        ShowdownTable.objects.select_related(
            "bet_paytable", "hole_card_bonus_paytable", "final_hand_bonus_paytable"
        )
        .filter(pk=table_id, seats__gt=1)
        .first()
    )
    if table is None:
        raise Http404("No such live table")
    return render(
        request,
        "showdown/live.html",
        {
            "table": table,
            "seat_numbers": range(1, 8),
            "paytables": table.paytable_rows(),
            # The process the front should send the socket to: the table's owner (a hint).
            "ws_node": table_route(table.pk, "showdown"),
        },
    )
