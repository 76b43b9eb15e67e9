"""The deck in one place: `Hand.setup` and `Hand.state` lose their copies of it (the engine's
`setup_without_deck` and `snapshot()`); `Hand.deck` keeps the only one."""

from django.db import migrations


def drop_deck_copies(apps, schema_editor):
    """Take the deck out of every stored setup and state; `deck` keeps the only copy."""
    Hand = apps.get_model("poker", "Hand")
    hands = Hand.objects.only("id", "setup", "state").order_by("id")
    for hand in hands.iterator(chunk_size=200):
        setup, state = dict(hand.setup or {}), dict(hand.state or {})
        changed = setup.pop("deck", None) is not None
        if isinstance(state.get("setup"), dict) and "deck" in state["setup"]:
            state["setup"] = {k: v for k, v in state["setup"].items() if k != "deck"}
            changed = True
        if changed:
            Hand.objects.filter(pk=hand.pk).update(setup=setup, state=state)


class Migration(migrations.Migration):
    dependencies = [("poker", "0006_hand_log")]

    operations = [
        migrations.RunPython(drop_deck_copies, migrations.RunPython.noop),
    ]
