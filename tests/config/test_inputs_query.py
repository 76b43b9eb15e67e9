"""NUL bytes in a query string, which PostgreSQL cannot take in any text: a 400, never a 500."""

import pytest

from tests.factories import make_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser_client(client):
    client.force_login(make_player("boss", is_staff=True, is_superuser=True))
    return client


@pytest.mark.parametrize(
    "query",
    [
        "q=royal%00flush",  # the changelist search
        "name=a%00",  # a field lookup in the URL
        "o=1&name__startswith=%00",
        "q%00=x",  # a NUL in the parameter's name
    ],
)
def test_an_admin_changelist_with_a_nul_byte_in_its_filters_is_a_bad_request(
    superuser_client, query
):
    response = superuser_client.get(f"/admin/poker/table/?{query}")
    assert response.status_code == 400


def test_a_nul_byte_in_any_page_query_is_a_bad_request(client):
    assert client.get("/?game=%00").status_code == 400


def test_a_query_without_nul_bytes_passes(superuser_client):
    assert superuser_client.get("/admin/poker/table/?q=royal").status_code == 200
