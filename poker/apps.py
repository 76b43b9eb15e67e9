from django.apps import AppConfig


class PokerConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "poker"

    def ready(self) -> None:
        # verify_ledger checks every settled hand against its result; the cashier sits below
        # poker and cannot import it, so poker hands the check over.
        from cashier.verify import ledger_check_register
        from poker.ledger_checks import SETTLEMENTS_MATCH_HANDS

        ledger_check_register(SETTLEMENTS_MATCH_HANDS)
