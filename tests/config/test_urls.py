"""The room's icon: every page of the room links it, and /favicon.ico (which browsers ask for
anyway) leads to it. "Every page" is every URL pattern without parameters that answers a visitor
or a player with an HTML page, read from the URL map itself; the admin's pages and the API docs
are Django's and drf-spectacular's templates and do not link it."""

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from tests.factories import make_player

BACKEND = "django.contrib.auth.backends.ModelBackend"
NOT_THE_ROOMS = ("/admin/", "/api/docs/", "/api/redoc/")


def plain_paths(patterns=None, prefix: str = "/"):
    """Every path of the URL map whose route takes no parameter."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = str(entry.pattern)
        if "<" in route or "(" in route or "^" in route:  # a converter or a regex group
            continue
        if isinstance(entry, URLResolver):
            yield from plain_paths(entry.url_patterns, prefix + route)
        elif isinstance(entry, URLPattern):
            yield prefix + route


def html_pages(client: Client) -> dict[str, str]:
    """{path: body} of every plain path that answers this client with an HTML page."""
    pages = {}
    for path in plain_paths():
        if path.startswith(NOT_THE_ROOMS):
            continue
        if path.endswith("logout/"):
            continue  # keep the session for the paths after it
        response = client.get(path)
        if response.status_code == 200 and response["Content-Type"].startswith("text/html"):
            pages[path] = response.content.decode()
    return pages


@pytest.mark.django_db
def test_every_room_page_links_the_icon_and_favicon_ico_leads_to_it():
    player = Client()
    player.force_login(make_player("ann"), backend=BACKEND)
    pages = {**html_pages(Client()), **html_pages(player)}
    assert {"/", "/accounts/login/", "/accounts/profile/", "/cashier/"} <= set(pages), set(pages)
    unlinked = sorted(
        path
        for path, body in pages.items()
        if 'rel="icon"' not in body or "favicon.svg" not in body
    )
    assert not unlinked, f"pages without the icon: {unlinked}"
    response = Client().get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("favicon.svg")
    assert finders.find("favicon.svg"), "the icon is a static file"
