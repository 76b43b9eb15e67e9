"""Schemathesis over the room's OpenAPI schema (/api/schema/, drf-spectacular): whatever it
sends, valid or not, no request gets a 5xx, as a player (token), an auditor (token, member of
the "auditors" group) or anonymous.

The API is called in process through Django's WSGI handler (the same middleware and views
daphne serves) on the test database, so each operation's examples run inside one rolled-back
test. CI-sized: a few examples per operation (`MAX_EXAMPLES`) on top of schemathesis's
examples and coverage phases, no shrinking, a seed fixed unless CHAOS_SEED is set. The long
form sets CHAOS_API_EXAMPLES (docs/benchmarks.md, "Faults")."""

import copy
import os

import pytest
import schemathesis
from django.contrib.auth.models import Group
from django.core.handlers.wsgi import WSGIHandler
from django.db import connections
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token

from tests.factories import make_funded_player, make_player

pytestmark = [pytest.mark.chaos, pytest.mark.django_db]

SEED = int(os.environ.get("CHAOS_SEED", "20261124"))
MAX_EXAMPLES = int(os.environ.get("CHAOS_API_EXAMPLES", "5"))


def room_wsgi(environ, start_response):
    """The room over WSGI, keeping the test's database connection (and so its transaction)
    open after each request, as Django's own test client does. Not as the test client does it,
    by disconnecting `close_old_connections` from the request signals: those are the whole
    process's, and another thread reconnecting them mid-request (a test client's request ends
    by connecting them again) had this thread's connection closed inside its transaction, two
    loaded CI runs seen. This thread's connections keep themselves open instead."""
    kept = [conn for conn in connections.all(initialized_only=True) if conn.connection]
    for conn in kept:
        conn.close_if_unusable_or_obsolete = lambda: None
    try:
        response = WSGIHandler()(environ, start_response)
        try:
            return [b"".join(response)]
        finally:
            response.close()  # request_finished, while the connections keep themselves open
    finally:
        for conn in kept:
            del conn.close_if_unusable_or_obsolete


def room_schema(phases: list[str], served: dict | None = None):
    """The schema as /api/schema/ serves it, generating through `phases` (schemathesis's).
    `served`: the document another of these loaded, copied rather than asked for again (making
    it takes drf-spectacular a second of CPU, in every process that collects this module)."""
    if served is None:
        loaded = schemathesis.openapi.from_wsgi("/api/schema/", room_wsgi)
    else:
        loaded = schemathesis.openapi.from_dict(copy.deepcopy(served))
        loaded.app, loaded.location = room_wsgi, "/api/schema/"
    loaded.config.seed = SEED
    loaded.config.phases.update(phases=phases)
    loaded.config.generation.update(max_examples=MAX_EXAMPLES, no_shrink=True, deterministic=True)
    return loaded


# Signed in: the schema's examples, its coverage cases (every boundary and every kind of wrong
# value, field by field) and random ones. Anonymous: every operation must say 401 or 403 (or
# serve the public ones) before it reads its input, so random cases are enough.
signed_in = room_schema(["examples", "coverage", "fuzzing"])
anonymous = room_schema(["fuzzing"], served=signed_in.raw_schema)
HYPOTHESIS = settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)


@pytest.fixture(params=["player", "auditor"])
def caller(request, db) -> dict[str, str]:
    """A signed-in caller's headers (the player has money and history to page through)."""
    if request.param == "player":
        user = make_funded_player("schema-player", cents=250_000)
    else:
        user = make_player("schema-auditor")
        user.groups.add(Group.objects.get(name="auditors"))
    return {"Authorization": f"Token {Token.objects.create(user=user).key}"}


def assert_no_server_error(case, headers: dict[str, str]) -> None:
    response = case.call(headers=headers)
    assert response.status_code < 500, (
        f"{response.status_code} for {case.method} {case.formatted_path} "
        f"(seed {SEED}): {response.text[:800]}\nreproduce: {case.as_curl_command(headers=headers)}"
    )


@signed_in.parametrize()
@HYPOTHESIS
def test_no_request_of_a_player_or_an_auditor_gets_a_server_error(case, caller):
    assert_no_server_error(case, caller)


@anonymous.parametrize()
@HYPOTHESIS
def test_no_anonymous_request_gets_a_server_error(case, db):
    assert_no_server_error(case, {})
