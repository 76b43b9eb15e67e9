"""Django's PostgreSQL backend on the embedded room's own server (config/embedded_postgres.py).

The server is started when Django first makes this backend (the first use of the database in
a process), not when settings are read: `make lint`, `manage.py help` and the like read the
settings and never start it.
"""

from django.conf import settings
from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def __init__(self, settings_dict, alias="default"):
        from config.embedded_postgres import embedded_data_dir, embedded_server_start

        address = embedded_server_start(embedded_data_dir(settings.BASE_DIR))
        # Filled in where Django's own tools read them too (dbshell, test database names).
        settings_dict["HOST"] = address.socket_dir
        settings_dict["PORT"] = str(address.port)
        super().__init__(settings_dict, alias)
