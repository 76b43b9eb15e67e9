from django.apps import AppConfig


class AuditConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "audit"
    verbose_name = "Audit log"

    def ready(self) -> None:
        from audit import signals  # noqa: F401  (connects the security events)
        from audit.ledger_checks import CHECK
        from audit.verify import audit_check_register

        audit_check_register(CHECK)
