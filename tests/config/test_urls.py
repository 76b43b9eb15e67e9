"""The room's icon: every page links it, and /favicon.ico (which browsers ask for anyway)
leads to it."""

import pytest
from django.contrib.staticfiles import finders


@pytest.mark.django_db
def test_every_page_links_the_icon_and_favicon_ico_leads_to_it(client):
    page = client.get("/").content.decode()
    assert 'rel="icon"' in page and "favicon.svg" in page
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("favicon.svg")
    assert finders.find("favicon.svg"), "the icon is a static file"
