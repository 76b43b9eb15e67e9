from django.apps import AppConfig


class ResponsibleConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "responsible"
    verbose_name = "Responsible gaming"
