"""Table pages. Thin: the page is a shell; the table itself arrives over the table's socket."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from poker.models import Table


@login_required
def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    """The page a player plays at; seats, cards and buttons are drawn by static/js/table.js."""
    table = get_object_or_404(Table, pk=table_id)
    profile = getattr(request.user, "profile", None)
    config = {
        "table_id": table.pk,
        "ws_path": f"/ws/tables/{table.pk}/",
        "user_id": request.user.pk,
        "display_name": getattr(profile, "display_name", "") or request.user.get_username(),
        # The player's reality check (responsible gaming): the page asks it when to remind.
        "reality_check_url": reverse("api-responsible-reality-check"),
        # Where a player whose wallet cannot cover the buy-in goes to deposit.
        "cashier_url": reverse("cashier:home"),
    }
    return render(request, "poker/table.html", {"table": table, "table_config": config})
