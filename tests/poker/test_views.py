"""The table page: a shell for signed-in players that table.js fills from the socket."""

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from poker import owner
from poker.models import Table, TableOwner

pytestmark = pytest.mark.django_db


def page_config(player_client, table) -> dict:
    response = player_client.get(reverse("poker:table", args=[table.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    start = html.index('id="table-config"')
    return json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])


def test_the_table_page_carries_the_socket_path_and_the_script(player_client, table):
    response = player_client.get(reverse("poker:table", args=[table.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "js/table.js" in html
    assert table.stakes_label in html
    config = page_config(player_client, table)
    assert config["ws_path"] == f"/ws/tables/{table.pk}/"
    assert config["table_id"] == table.pk
    assert config["ws_node"] == ""  # no owner alive: the front chooses


def test_the_table_page_names_the_owner_s_process_for_the_front(
    player_client, table, channel_layer_of_its_own
):
    """`ws_node` is the front's name (POKER_OWNER_ROUTE) of the table's live owner, or, when no
    live owner holds the table, of the owner its commands would go to (`owner_for`)."""
    later = timezone.now() + timedelta(seconds=30)
    # Owners on this channel layer (their channels carry its prefix), which the suite's
    # daphne, a live owner too, is not on.
    prefix = channel_layer_of_its_own
    names = {f"owner|host-{n}:1|{prefix}specific.{n}": f"asgi-{n}" for n in (1, 2, 3)}
    for name, route in names.items():
        TableOwner.objects.create(name=name, route=route, expires_at=later)
    chosen = owner.owner_chosen(table.pk, sorted(names))
    assert page_config(player_client, table)["ws_node"] == names[chosen]

    holder = next(name for name in names if name != chosen)
    Table.objects.filter(pk=table.pk).update(lease_owner=holder, lease_expires_at=later)
    assert page_config(player_client, table)["ws_node"] == names[holder]

    # An owner whose announcement lapsed has no route to give (it may be gone).
    TableOwner.objects.filter(name=holder).update(expires_at=timezone.now())
    assert page_config(player_client, table)["ws_node"] == ""


def test_anonymous_visitors_are_sent_to_log_in(client, table):
    response = client.get(reverse("poker:table", args=[table.pk]))
    assert response.status_code == 302
    assert reverse("lobby:login") in response["Location"]


def test_an_unknown_table_is_not_found(player_client):
    assert player_client.get(reverse("poker:table", args=[999_999])).status_code == 404
