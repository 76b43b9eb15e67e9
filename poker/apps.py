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

        # A hand the engine refuses is cancelled (poker/services/unit.py hands it to faults).
        from poker.services.faults import hand_cancel
        from poker.services.unit import refused_hand_cancel_register

        refused_hand_cancel_register(hand_cancel)

        # The room's one timer path (config.timeouts) runs the tables' timers here.
        from config.timeouts import ROUTINE, timeout_register
        from poker import tasks

        # A turn's and a next hand's timers come with every action and hand: the routine lane.
        timeout_register("poker.turn", tasks.turn_timeout, priority=ROUTINE)
        timeout_register("poker.hand_start", tasks.hand_start_timeout, priority=ROUTINE)
        timeout_register("poker.sit_out", tasks.sit_out_timeout)

        # What a table's owner runs for the others (poker/owner.py): sockets' commands, the
        # tables' timeouts, the sweep's finds and the staff's table tools (which wait for the
        # owner's answer: command_ask_sync).
        from poker.dispatch import ANSWER_KIND, command_answer_here, command_here
        from poker.models import Table
        from poker.owner import (
            POKER,
            command_ask_sync,
            lease_model_register,
            owner_handler_register,
        )
        from poker.services.memory import memory_leases_renewed
        from poker.services.staff import STAFF_KIND, staff_tool_here, staff_tools_route

        lease_model_register(POKER, Table, renewed=memory_leases_renewed)
        owner_handler_register("poker.command", command_here)
        owner_handler_register(ANSWER_KIND, command_answer_here)
        owner_handler_register("poker.timeout", tasks.timeout_here)
        owner_handler_register("poker.sweep", tasks.sweep_here)
        owner_handler_register(STAFF_KIND, staff_tool_here)
        staff_tools_route(command_ask_sync)
