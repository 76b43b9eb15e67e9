from django.apps import AppConfig


class CashierConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "cashier"

    def ready(self) -> None:
        from audit.verify import Verification, audit_check_register, verification_register
        from cashier import checks  # noqa: F401 (registers the deploy check)
        from cashier.audit_checks import ADJUSTMENT_CHECK, CHECK, MATCH_CHECK
        from cashier.verify import ledger_verification

        # The audit log sits below the ledger: the cashier hands it the checks relating the
        # two and its own daily verification, so the log never imports the cashier.
        for check in (CHECK, MATCH_CHECK, ADJUSTMENT_CHECK):
            audit_check_register(check)
        verification_register(Verification(name="ledger", run=ledger_verification))
