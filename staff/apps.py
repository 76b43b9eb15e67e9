from django.apps import AppConfig


class StaffConfig(AppConfig):
    """The staff who run the room from the admin: their roles, tools and notes on players."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "staff"
    verbose_name = "Running the room"
