"""Live tables: seating, hands that run themselves, actions, timers and cancellation.

Every service is one `table_change` (poker/services/unit.py): one transaction that locks the
table row, lets the service load and apply, then persists, and after commit broadcasts the
change (`poker.broadcast`) and sets the timers of what comes next (`config.timeouts`, run by
`poker.tasks`). The modules split the services by concern; import them from here
(`from poker import services`).
"""

from poker.services.acting import (
    MAX_SEQ,
    RUNS_ANSWER_SECONDS,
    table_act,
    table_runs_answer,
    table_show_cards,
)
from poker.services.chat import chat_message_remove, table_chat_send
from poker.services.dealing import START_SLACK_SECONDS, table_hand_start
from poker.services.faults import STUCK_HAND_SECONDS, hand_cancel, sweep_item_run, tables_sweep
from poker.services.seating import (
    seat_evict,
    table_big_blind_choose,
    table_connection_set,
    table_leave,
    table_leave_after_hand,
    table_seat_options_set,
    table_sit,
    table_sit_in,
    table_sit_out,
    table_top_up,
)
from poker.services.timers import (
    hand_turn_passed,
    hand_turn_timeout,
    seat_sit_out_timeout,
    table_start_timeout,
)
from poker.services.unit import TableChange, TableError, table_change
from poker.services.waiting import (
    JoinedGame,
    table_join_any,
    waiting_list_join,
    waiting_list_leave,
    waiting_lists_leave_all,
)

__all__ = [
    "MAX_SEQ",
    "RUNS_ANSWER_SECONDS",
    "START_SLACK_SECONDS",
    "STUCK_HAND_SECONDS",
    "JoinedGame",
    "TableChange",
    "TableError",
    "chat_message_remove",
    "hand_cancel",
    "hand_turn_passed",
    "hand_turn_timeout",
    "seat_evict",
    "seat_sit_out_timeout",
    "sweep_item_run",
    "table_act",
    "table_big_blind_choose",
    "table_change",
    "table_chat_send",
    "table_connection_set",
    "table_hand_start",
    "table_join_any",
    "table_leave",
    "table_leave_after_hand",
    "table_runs_answer",
    "table_seat_options_set",
    "table_show_cards",
    "table_sit",
    "table_sit_in",
    "table_sit_out",
    "table_start_timeout",
    "table_top_up",
    "tables_sweep",
    "waiting_list_join",
    "waiting_list_leave",
    "waiting_lists_leave_all",
]
