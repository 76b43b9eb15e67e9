"""Account services that keep a player's choices on their profile."""

import pytest

from accounts.models import Profile
from accounts.services import profile_set_sound_muted
from tests.factories import make_player

pytestmark = pytest.mark.django_db


def test_the_sound_switch_is_kept_on_the_profile_made_if_missing():
    """A player made outside sign-up (no profile yet) gets one; the same choice again
    writes nothing new."""
    player = make_player("olga")
    Profile.objects.filter(user=player).delete()
    assert profile_set_sound_muted(user=player, muted=True).sound_muted is True
    assert Profile.objects.get(user=player).sound_muted is True
    assert profile_set_sound_muted(user=player, muted=True).sound_muted is True
    assert profile_set_sound_muted(user=player, muted=False).sound_muted is False
    assert Profile.objects.get(user=player).sound_muted is False
