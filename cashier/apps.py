from django.apps import AppConfig


class CashierConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "cashier"

    def ready(self) -> None:
        from cashier import checks  # noqa: F401 (registers the deploy check)
