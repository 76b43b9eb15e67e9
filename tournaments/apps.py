from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        # verify_ledger checks every tournament's prize pool against its entries; the cashier
        # sits below tournaments and cannot import them, so this app hands the check over.
        from cashier.verify import ledger_check_register
        from tournaments.ledger_checks import POOLS_MATCH_TOURNAMENTS

        ledger_check_register(POOLS_MATCH_TOURNAMENTS)
