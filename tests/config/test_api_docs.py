"""The API docs work offline: /api/docs/ (Swagger UI) and /api/redoc/ (ReDoc) load their
scripts, styles and icon from the room's static files (drf-spectacular-sidecar), never a CDN
or a font service, and render with every other host blocked."""

import re
import urllib.request
from urllib.parse import urljoin, urlsplit

import pytest

DOCS_PAGES = ["/api/docs/", "/api/redoc/"]
# Every URL the page itself names: attributes, and any absolute URL in inline script or style.
URL_ATTRIBUTE = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']""")
ABSOLUTE_URL = re.compile(r"""(?:https?:)?//[A-Za-z0-9.-]+""")


def referenced_urls(html: str) -> list[str]:
    return URL_ATTRIBUTE.findall(html)


@pytest.mark.django_db
@pytest.mark.parametrize("path", DOCS_PAGES)
def test_docs_pages_name_no_other_host(client, path):
    response = client.get(path)
    assert response.status_code == 200
    html = response.content.decode()
    assert ABSOLUTE_URL.findall(html) == [], "the page names another host"
    urls = referenced_urls(html)
    assert any(url.endswith(".js") for url in urls)
    for url in urls:
        assert not urlsplit(url).netloc, url
        assert url.startswith("/static/drf_spectacular_sidecar/") or url.startswith("/api/"), url


@pytest.mark.django_db
@pytest.mark.parametrize("path", DOCS_PAGES)
def test_docs_assets_are_served_by_the_room(client, asgi_server, path):
    """Through a real daphne serving static files as in the browser tests (in production the
    load balancer serves /static/ from `collectstatic`, docs/operations.md)."""
    html = client.get(path).content.decode()
    assets = [url for url in referenced_urls(html) if url.startswith("/static/")]
    assert assets
    for url in assets:
        with urllib.request.urlopen(urljoin(asgi_server, url), timeout=10) as response:
            body = response.read()
            assert response.status == 200, url
            assert body, url
            if url.endswith(".js"):
                assert "javascript" in response.headers["Content-Type"], url
                assert len(body) > 100_000, url  # the whole bundle, not an error page


@pytest.mark.browser
def test_swagger_ui_and_redoc_render_with_other_hosts_blocked(chromium, asgi_server):
    context = chromium.new_context(base_url=asgi_server)
    own_host = urlsplit(asgi_server).netloc
    blocked: list[str] = []

    def only_the_room(route):
        if urlsplit(route.request.url).netloc == own_host:
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    context.route("**/*", only_the_room)
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto("/api/docs/")
        page.wait_for_selector(".swagger-ui .info .title")
        assert "Omaha room API" in page.inner_text(".swagger-ui .info .title")
        page.wait_for_selector(".opblock-tag")
        assert page.locator(".opblock").count() > 10  # the operations are listed

        page.goto("/api/redoc/")
        page.wait_for_selector("h1:has-text('Omaha room API')")
        assert page.locator("[data-section-id^='tag/']").count() > 0
    finally:
        context.close()
    assert blocked == []
    assert errors == []
