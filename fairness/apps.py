from django.apps import AppConfig


class FairnessConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "fairness"
    verbose_name = "Provably fair dealing"
