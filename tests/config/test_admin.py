"""Admin pieces shared by every app (config/admin.py): a changelist filters only by what its
admin declares, in every admin registered in the room, Django's and third parties' included."""

import pytest
from django.contrib import admin
from django.urls import reverse

from tests.factories import make_player

pytestmark = pytest.mark.django_db


def _declared(model_admin) -> set[str]:
    names = {model_admin.date_hierarchy}
    for item in model_admin.list_filter:
        if isinstance(item, str):
            names.add(item)
        elif isinstance(item, list | tuple):
            names.add(item[0])
    return names


def _guesses(model_admin):
    """A lookup on every field the admin does not declare (a text guess and a null test), and
    on the declared ones a lookup their filter never sends."""
    declared = _declared(model_admin)
    for field in model_admin.model._meta.get_fields():
        if not field.concrete and not field.is_relation:
            continue
        name = field.name
        if name in declared:
            yield f"{name}__regex=."
        else:
            yield f"{name}__isnull=False"
            yield f"{name}__startswith=0"


def test_every_admin_refuses_a_lookup_it_does_not_declare(client, rf):
    """Asked of the admin itself, every guess, and through its list page, each kind of guess
    (400; a page of its own that draws no changelist, such as the house's days, filters
    nothing). The list page refuses a lookup because the admin does (Django's ChangeList asks
    `lookup_allowed` of every parameter), so one guess of each kind per page shows the page
    asks; the admin itself answers for all of them."""
    boss = make_player("boss", is_staff=True, is_superuser=True)
    client.force_login(boss, backend="django.contrib.auth.backends.ModelBackend")
    request = rf.get("/admin/")
    request.user = boss
    asked, tried, pages = 0, 0, 0
    for model, model_admin in admin.site._registry.items():
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        kinds: set[str] = set()
        for guess in _guesses(model_admin):
            lookup, _, value = guess.partition("=")
            assert not model_admin.lookup_allowed(lookup, value, request), (url, guess)
            asked += 1
            kind = lookup.rpartition("__")[2]
            if kind in kinds:
                continue
            kinds.add(kind)
            answer = client.get(f"{url}?{guess}")
            if answer.status_code == 200 and "cl" not in answer.context:
                continue
            assert answer.status_code == 400, (url, guess, answer.status_code)
            tried += 1
        pages += bool(kinds)
    assert asked > 300 and tried >= 2 * pages - 4 and pages > 30, (asked, tried, pages)
    models = {model._meta.label for model in admin.site._registry}
    assert {"auth.User", "auth.Group", "authtoken.TokenProxy", "fairness.Commitment"} <= models


def test_the_declared_filters_still_work(client):
    boss = make_player("boss", is_staff=True, is_superuser=True)
    client.force_login(boss, backend="django.contrib.auth.backends.ModelBackend")
    for url in (
        "/admin/staff/player/?is_active__exact=1&date_joined__year=2026",
        "/admin/staff/player/?last_login__isnull=True",
        f"/admin/audit/auditrecord/?family=staff&actor__id__exact={boss.pk}",
        "/admin/audit/auditrecord/?created_at__gte=2026-01-01&created_at__lt=2030-01-01",
        "/admin/poker/hand/?table__id__exact=1&started_at__year=2026&started_at__month=1",
        "/admin/cashier/posting/?account__kind__exact=wallet",
        f"/admin/auth/user/?groups__id__exact=1&is_superuser__exact=1&q={boss.username}",
    ):
        assert client.get(url).status_code == 200, url


def test_a_refused_lookup_logs_one_line(client, caplog):
    """Django logs a refused lookup with its traceback (some 60 lines): a probe of 2,800
    guesses flooded the log. One line each now, naming the lookup and not the value."""
    import logging

    boss = make_player("boss", is_staff=True, is_superuser=True)
    client.force_login(boss, backend="django.contrib.auth.backends.ModelBackend")
    caplog.set_level(logging.DEBUG)
    for guess in ("server_seed__startswith=ab", "salt__regex=^c", "client_seeds__regex=zz"):
        caplog.clear()
        response = client.get(f"/admin/fairness/commitment/?{guess}")
        assert response.status_code == 400, guess
        refused = [record for record in caplog.records if record.levelno >= logging.WARNING]
        assert len(refused) == 1, [record.getMessage() for record in refused]
        (record,) = refused
        lookup, _, value = guess.partition("=")
        assert record.exc_info is None and "\n" not in record.getMessage()
        assert lookup in record.getMessage() and value not in record.getMessage()
        assert record.name == "django.security.DisallowedModelAdminLookup"
