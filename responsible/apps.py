from django.apps import AppConfig


class ResponsibleConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "responsible"
    verbose_name = "Responsible gaming"

    def ready(self) -> None:
        from cashier.gates import DEPOSIT, PLAY, WITHDRAWAL, money_check_register
        from responsible import rules

        # The cashier sits below responsible gaming: it runs these inside its transactions
        # before money moves, without importing this app (cashier/gates.py).
        money_check_register(kind=DEPOSIT, check=rules.check_deposit)
        money_check_register(kind=WITHDRAWAL, check=rules.check_account_open)
        money_check_register(kind=PLAY, check=rules.check_play)

        from config.timeouts import timeout_register
        from responsible.tasks import session_limit_timeout

        timeout_register(rules.SESSION_TIMEOUT, session_limit_timeout)
