"""The room's Redis broker transport: kombu's, with a channel that closes on a lost connection.

When Redis goes away while the worker waits on its BRPOP, Celery collects the broken
connection and then closes it (celery/worker/consumer/consumer.py,
`on_connection_error_after_connected`, since Celery 5.7). kombu's redis channel first reads the
outstanding BRPOP's reply when it closes; on a dead socket that read raises, the channel stays
open, kombu drops the transport's client, and the second close then restores the unacknowledged
messages (the workers' pending turn timers) through a transport with no client:
`AttributeError: 'NoneType' object has no attribute 'hostname'` in `_connparams`, which ends the
worker for good. Here the lost reply counts as read, so the first close completes: the messages
are restored if Redis is reachable again (or stay in its unacked index for kombu's visibility
restore; the beat's sweeps act on what a restart lost) and the consumer reconnects.
"""

from queue import Empty

from kombu.transport import redis


class Channel(redis.Channel):
    def close(self) -> None:
        if self._in_poll:
            try:
                self._brpop_read()
            except (Empty, *self.connection_errors):
                pass  # the socket is gone: there is no reply to wait for
        super().close()


class Transport(redis.Transport):
    Channel = Channel
