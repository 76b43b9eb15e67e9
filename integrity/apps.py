from django.apps import AppConfig


class IntegrityConfig(AppConfig):
    """Game integrity: collusion, chip-dumping and bot signals from finished hands, the ranked
    review queue staff work from, and their cases."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "integrity"
    verbose_name = "Game integrity"
