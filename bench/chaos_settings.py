"""The room's settings (config.settings) plus a stuck-hand limit read from the environment, for
the fault runs (bench/chaos.py and tests/poker/test_chaos.py): with POKER_STUCK_HAND_SECONDS
short, a hand the faults left stuck is cancelled by the sweep within the run, not two minutes
later. Production reads config.settings, where the limit keeps its default (poker/services.py).
"""

from config.settings import *  # noqa: F403
from config.settings import env

POKER_STUCK_HAND_SECONDS = env.int("POKER_STUCK_HAND_SECONDS", default=120)
