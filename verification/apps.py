from django.apps import AppConfig


class VerificationConfig(AppConfig):
    """Know your customer: identity documents, proof of address and date of birth, reviewed by
    the compliance role before large withdrawals pay out (docs/rules.md, "Identity checks")."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "verification"
    verbose_name = "Identity checks"

    def ready(self) -> None:
        from verification import checks  # noqa: F401 (registers the folder check)
