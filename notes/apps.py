from django.apps import AppConfig


class NotesConfig(AppConfig):
    """A player's private notes and colour tags on other players (PokerStars' player notes).

    Below the games and the pages (pyproject.toml, contract `apps-layered`): the table page, the
    hand pages and the live Showdown table read the viewer's own notes from here; nothing of it
    ever enters a table's frames or another player's page.
    """

    default_auto_field = "django.db.models.BigAutoField"
    name = "notes"
    verbose_name = "Player notes"
