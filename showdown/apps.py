from django.apps import AppConfig


class ShowdownConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "showdown"
    verbose_name = "Omaha Showdown (banked game)"

    def ready(self) -> None:
        # verify_ledger checks the banked game's entries against its rounds; the cashier sits
        # below this app and cannot import it, so the app hands its checks over.
        from cashier.verify import ledger_check_register
        from showdown.ledger_checks import BANKED_CHECKS

        for check in BANKED_CHECKS:
            ledger_check_register(check)

        # The auditors' daily report counts each seat's round of a live board, which settles
        # all its seats in one entry naming no player; only this app knows how many it settled.
        from cashier.audit_reports import shared_settlement_rounds_register
        from showdown.selectors import shared_settlement_rounds

        shared_settlement_rounds_register(shared_settlement_rounds)

        # The live table's timers ride the room's one timer path (config.timeouts).
        from config.timeouts import timeout_register
        from showdown import tasks

        timeout_register("showdown.round", tasks.live_round_timeout)
        timeout_register("showdown.away", tasks.live_away_timeout)

        # A live table is owned like a poker table (poker/owner.py): its lease is on its row,
        # and its owner runs the sockets' commands and the rounds' timeouts.
        from poker.owner import lease_model_register, owner_handler_register
        from showdown.dispatch import command_here
        from showdown.models import ShowdownTable

        lease_model_register("showdown", ShowdownTable)
        owner_handler_register("showdown.command", command_here, table_kind="showdown")
        owner_handler_register("showdown.timeout", tasks.timeout_here, table_kind="showdown")
