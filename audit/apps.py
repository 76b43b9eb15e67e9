from django.apps import AppConfig


class AuditConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "audit"
    verbose_name = "Audit log"

    def ready(self) -> None:
        from audit import checks, signals  # noqa: F401  (the deploy check, security events)
        from audit.ledger_checks import ADJUSTMENT_CHECK, CHECK, MATCH_CHECK
        from audit.verify import audit_check_register

        for check in (CHECK, MATCH_CHECK, ADJUSTMENT_CHECK):
            audit_check_register(check)
