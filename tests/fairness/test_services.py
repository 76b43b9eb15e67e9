"""Client seeds and commitments (fairness/services.py): bad seeds refused and nothing saved,
the seeds mixed into the deck, the secrets kept out of repr, the admin and the API while a
deal runs."""

from datetime import timedelta

import pytest
from django.utils import timezone

from fairness.models import ClientSeed, Commitment, ServerSeed
from fairness.services import (
    FairnessRefused,
    client_seed_set,
    deal_commit,
    deal_draw,
    deal_reveal,
    deal_reveal_stamp,
    table_seed_take,
)
from poker.engine import fairness as scheme
from tests.factories import make_player

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("seed", ["", "two words", "x" * 65, "caf\u00e9", None, 12, ["a"]])
def test_a_bad_client_seed_is_refused_and_nothing_changes(player, seed):
    client_seed_set(player=player, seed="kept")
    with pytest.raises(FairnessRefused) as refused:
        client_seed_set(player=player, seed=seed)
    assert refused.value.code == "bad_client_seed"
    assert ClientSeed.objects.get(player=player).seed == "kept"


def test_a_player_without_a_seed_gets_a_random_one_kept_for_later_deals(player, other_player):
    assert not ClientSeed.objects.exists()
    first = deal_draw(players={1: player, 4: other_player})
    drawn = ClientSeed.objects.get(player=player)
    assert not drawn.chosen and len(drawn.seed) == 32
    assert first.client_seeds == {
        1: drawn.seed,
        4: ClientSeed.objects.get(player=other_player).seed,
    }
    again = deal_draw(players={2: player})
    assert again.client_seeds == {2: drawn.seed}


def test_the_deck_follows_from_the_seeds_and_the_commitment_from_the_deck(player, other_player):
    client_seed_set(player=player, seed="alice's-own")
    deal = deal_draw(players={3: player, 7: other_player})
    assert deal.client_seeds[3] == "alice's-own"
    assert deal.deck == scheme.seeded_deck(deal.server_seed, deal.client_seeds)
    assert deal.commitment == scheme.commitment(deal.deck, deal.salt)
    assert deal.players == {3: player.pk, 7: other_player.pk}
    assert deal.server_seed.hex() not in repr(deal) and deal.salt.hex() not in repr(deal)


def test_a_client_seed_changes_the_deck(player):
    """Same server seed, the player's seed changed: another deck (the room cannot keep one)."""
    deal = deal_draw(players={1: player})
    changed = scheme.seeded_deck(deal.server_seed, {1: deal.client_seeds[1] + "x"})
    assert changed != deal.deck


def test_commit_stores_the_secrets_and_reveal_stamps_once(player):
    deal = deal_draw(players={1: player})
    row = deal_commit(kind="hand", ref_id=99, deal=deal)
    assert row.salt == deal.salt.hex() and row.server_seed == deal.server_seed.hex()
    assert row.client_seeds == {"1": deal.client_seeds[1]} and row.players == {"1": player.pk}
    assert row.salt not in repr(row) and row.server_seed not in repr(row)
    assert row.revealed_at is None
    revealed = deal_reveal(kind="hand", ref_id=99)
    stamped = revealed.revealed_at
    assert stamped is not None
    assert deal_reveal(kind="hand", ref_id=99).revealed_at == stamped
    assert deal_reveal(kind="hand", ref_id=12345) is None
    with pytest.raises(FairnessRefused):
        deal_commit(kind="poker", ref_id=1, deal=deal)


def test_the_admin_hides_a_running_deals_secrets(admin_client, player):
    deal = deal_draw(players={1: player})
    row = deal_commit(kind="hand", ref_id=5, deal=deal)
    url = f"/admin/fairness/commitment/{row.pk}/change/"
    page = admin_client.get(url).content.decode()
    assert row.commitment in page
    assert row.salt not in page and row.server_seed not in page
    assert deal.client_seeds[1] not in page
    listing = admin_client.get("/admin/fairness/commitment/").content.decode()
    assert row.salt not in listing and row.server_seed not in listing
    deal_reveal(kind="hand", ref_id=5)
    page = admin_client.get(url).content.decode()
    assert row.salt in page and row.server_seed in page


def test_client_seed_api_and_profile_form(player_client, player):
    assert player_client.get("/api/fairness/seed/").json() == {"seed": None, "chosen": False}
    answer = player_client.put(
        "/api/fairness/seed/", {"seed": "lucky-7"}, content_type="application/json"
    )
    assert answer.status_code == 200
    assert answer.json() == {"seed": "lucky-7", "chosen": True}
    bad = player_client.put(
        "/api/fairness/seed/", {"seed": "has space"}, content_type="application/json"
    )
    assert bad.status_code == 400 and bad.json()["code"] == "bad_client_seed"
    assert ClientSeed.objects.get(player=player).seed == "lucky-7"
    player_client.post("/fairness/seed/", {"seed": "from-the-page"})
    assert ClientSeed.objects.get(player=player).seed == "from-the-page"
    profile = player_client.get("/accounts/profile/").content.decode()
    assert "from-the-page" in profile and 'action="/fairness/seed/"' in profile


def test_seed_api_needs_a_login(client):
    assert client.get("/api/fairness/seed/").status_code in (401, 403)
    assert not Commitment.objects.exists()


def test_a_player_sees_only_their_own_deals(client, player):
    other = make_player("carol")
    deal = deal_draw(players={1: player})
    deal_commit(kind="hand", ref_id=77, deal=deal)
    client.force_login(other, backend="django.contrib.auth.backends.ModelBackend")
    assert client.get("/api/fairness/hand/77/").status_code == 404
    assert client.get("/fairness/hand/77/").status_code == 404


def test_a_players_deals_list_links_each_check(player_client, player, other_player):
    for ref_id in (10, 11):
        deal_commit(kind="hand", ref_id=ref_id, deal=deal_draw(players={1: player}))
    deal_commit(kind="hand", ref_id=12, deal=deal_draw(players={1: other_player}))
    page = player_client.get("/fairness/").content.decode()
    assert 'href="/fairness/hand/11/"' in page and 'href="/fairness/hand/10/"' in page
    assert page.index("/fairness/hand/11/") < page.index("/fairness/hand/10/")
    assert "/fairness/hand/12/" not in page


def test_an_id_too_big_for_any_row_is_not_found(player_client):
    huge = 2**70
    assert player_client.get(f"/api/fairness/hand/{huge}/").status_code == 404
    assert player_client.get(f"/api/fairness/round/{huge}/").status_code == 404
    assert player_client.get(f"/fairness/hand/{huge}/").status_code == 404


def test_the_admin_list_is_no_oracle_on_a_running_deals_secrets(admin_client, player):
    """A lookup such as `?server_seed__startswith=<prefix>` is refused (400), right prefix or
    wrong, and the same for the salt and the client seeds: listing the row only for the right
    prefix would let a superuser read the seeds a character at a time."""
    deal = deal_draw(players={1: player})
    row = deal_commit(kind="hand", ref_id=6, deal=deal)
    base = f"/admin/fairness/commitment/?kind=hand&ref_id={row.ref_id}"
    for guess in (
        f"server_seed__startswith={row.server_seed[:2]}",
        "server_seed__startswith=zz",
        f"salt__startswith={row.salt[:2]}",
        f"client_seeds__regex={deal.client_seeds[1][:2]}",
        f"kind__exact=hand&server_seed__startswith={row.server_seed[:1]}",
    ):
        answer = admin_client.get(f"{base}&{guess}")
        assert answer.status_code == 400, guess
        assert row.commitment not in answer.content.decode()
    # What the admin declares still filters and searches.
    assert (
        row.commitment
        in admin_client.get(
            f"/admin/fairness/commitment/?kind__exact=hand&q={row.ref_id}"
        ).content.decode()
    )


def test_reveal_stamp_opens_a_deal_once_in_one_update(player, django_assert_num_queries):
    deal = deal_draw(players={1: player})
    row = deal_commit(kind="round", ref_id=77, deal=deal)
    with django_assert_num_queries(1):
        assert deal_reveal_stamp(kind="round", ref_id=77) is True
    row.refresh_from_db()
    stamped = row.revealed_at
    assert stamped is not None
    assert deal_reveal_stamp(kind="round", ref_id=77) is False  # once: the time stays
    row.refresh_from_db()
    assert row.revealed_at == stamped
    assert deal_reveal_stamp(kind="round", ref_id=12345) is False  # no such deal


def test_the_dealt_players_client_seeds_are_one_read(
    player, other_player, django_assert_num_queries
):
    client_seed_set(player=player, seed="mine")
    deal_draw(players={1: player, 2: other_player})  # the other's seed drawn and kept
    with django_assert_num_queries(1):
        deal = deal_draw(players={1: player, 2: other_player})
    assert deal.client_seeds == {1: "mine", 2: ClientSeed.objects.get(player=other_player).seed}


def test_a_table_seed_is_taken_by_one_update_and_the_next_published_by_one_insert(
    django_assert_num_queries,
):
    """docs/fairness.md: the seed a hand uses was published before it; taking it publishes
    the next. A table with none waiting (dealt before seeds were published) draws one taken
    at once."""
    dealt = timezone.now()
    first, upcoming = table_seed_take(table_id=4242, now=dealt)
    assert first.taken_at == dealt and upcoming.taken_at is None
    assert upcoming.published_at == dealt and first.seed != upcoming.seed
    later = dealt + timedelta(seconds=30)
    with django_assert_num_queries(2):
        taken, after = table_seed_take(table_id=4242, now=later)
    assert (taken.pk, taken.seed, taken.seed_hash) == (
        upcoming.pk,
        upcoming.seed,
        upcoming.seed_hash,
    )
    assert taken.published_at == dealt and taken.taken_at == later
    stored = ServerSeed.objects.get(pk=upcoming.pk)
    assert stored.taken_at == later and stored.published_at == dealt
    assert ServerSeed.objects.get(table_id=4242, taken_at__isnull=True) == after
    assert scheme.server_seed_hash(bytes.fromhex(after.seed)) == after.seed_hash
