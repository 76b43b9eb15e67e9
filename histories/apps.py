from django.apps import AppConfig


class HistoriesConfig(AppConfig):
    """Hand histories: a player's own hands, the replayer, and the exports poker tools read."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "histories"
    verbose_name = "Hand histories"
