"""The table page: a shell for signed-in players that table.js fills from the socket."""

import json

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_the_table_page_carries_the_socket_path_and_the_script(player_client, table):
    response = player_client.get(reverse("poker:table", args=[table.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "js/table.js" in html
    assert table.stakes_label in html
    start = html.index('id="table-config"')
    config = json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])
    assert config["ws_path"] == f"/ws/tables/{table.pk}/"
    assert config["table_id"] == table.pk


def test_anonymous_visitors_are_sent_to_log_in(client, table):
    response = client.get(reverse("poker:table", args=[table.pk]))
    assert response.status_code == 302
    assert reverse("lobby:login") in response["Location"]


def test_an_unknown_table_is_not_found(player_client):
    assert player_client.get(reverse("poker:table", args=[999_999])).status_code == 404
