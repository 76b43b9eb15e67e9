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

        # Play at the tables: each hand's end at a Sit & Go's table (eliminations, prizes),
        # and the blind level clock, run at the table's owner like the tables' own timers.
        from config.timeouts import timeout_register
        from poker.owner import owner_handler_register
        from poker.services.acting import tournament_hand_end_register
        from tournaments.services import LEVEL_KIND, tournament_hand_end

        tournament_hand_end_register(tournament_hand_end)
        # The table's STATE carries the Sit & Go's level, clock and places.
        from poker.selectors import tournament_reader_register
        from tournaments import tasks
        from tournaments.selectors import tournament_for_table

        tournament_reader_register(tournament_for_table)
        timeout_register(LEVEL_KIND, tasks.level_timeout)
        owner_handler_register(LEVEL_KIND, tasks.level_here)
