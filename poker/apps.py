from django.apps import AppConfig


class PokerConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "poker"
