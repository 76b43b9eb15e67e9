"""Django's PostgreSQL backend on the embedded room's own server (config/embedded_postgres.py).

The server is started when a connection is first made (or `dbshell` run) in a process, not
when settings are read or the backend is built: `make lint` (mypy's Django plugin builds the
backend), `manage.py help` and the like never start it.
"""

from django.conf import settings
from django.db.backends.postgresql import base, client


def _server_address_fill(settings_dict: dict) -> None:
    from config.embedded_postgres import embedded_data_dir, embedded_server_start

    address = embedded_server_start(embedded_data_dir(settings.BASE_DIR))
    # Filled in where Django's own tools read them too (dbshell, test database names).
    settings_dict["HOST"] = address.socket_dir
    settings_dict["PORT"] = str(address.port)


class DatabaseClient(client.DatabaseClient):
    def runshell(self, parameters):
        _server_address_fill(self.connection.settings_dict)
        super().runshell(parameters)


class DatabaseWrapper(base.DatabaseWrapper):
    client_class = DatabaseClient

    def get_connection_params(self):
        _server_address_fill(self.settings_dict)
        return super().get_connection_params()
