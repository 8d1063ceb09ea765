"""Settings for the Durak tournament service: one file, every value from the environment.

Nothing set: the embedded defaults (SQLite file, in-memory channel layer, Celery eager),
which is what `python3 dev.py demo` and the plain test run use.
`DATABASE_URL=postgres://...` and `REDIS_URL=redis://...`: PostgreSQL through psycopg 3, the
Redis channel layer and cache, Celery broker and results on Redis with real workers.
`DJANGO_DEBUG=0`: production; then `DJANGO_SECRET_KEY` and `DJANGO_ALLOWED_HOSTS` are required.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
import django_stubs_ext
from corsheaders.defaults import default_headers
from csp.constants import NONCE, NONE, SELF, UNSAFE_INLINE

from durak_site import layerformat  # registers the channel layer's message format
from durak_site.env import (
    EnvError,
    env_bool,
    env_int,
    env_list,
    env_optional,
    env_origins,
    env_str,
    env_url,
    redis_database,
)
from durak_site.processes import TRUSTED_PROXIES, trusted_proxies_in

# Django's generic classes take their model at runtime as they do for mypy
# (``admin.ModelAdmin[Tournament]``); the stubs alone only teach mypy.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DJANGO_DEBUG", default=True)

if DEBUG:
    SECRET_KEY = env_str("DJANGO_SECRET_KEY", "dev-only-insecure-key-do-not-use-in-production")
    ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
else:
    SECRET_KEY = env_str("DJANGO_SECRET_KEY", required=True)
    if len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5:
        raise EnvError("DJANGO_SECRET_KEY must be at least 50 characters with 5 distinct ones")
    ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", required=True)

CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")
# The reverse proxies whose X-Forwarded-For and X-Forwarded-Proto the ASGI server believes (its
# command line, durak_site/processes.py); none by default. The client's address is then the
# ASGI scope's client, taken in one place (durak_site/clientaddr.py): Django reads no forwarded
# header itself.
try:
    DURAK_TRUSTED_PROXIES = trusted_proxies_in()
except ValueError as exc:
    raise EnvError(str(exc)) from None
if env_optional("DURAK_NUM_PROXIES") is not None:
    raise EnvError(
        f"DURAK_NUM_PROXIES is gone: name the proxies' addresses in {TRUSTED_PROXIES} instead "
        "(the server then takes the client's address from what they forward, and only from them)"
    )
# Pages of these origins (exactly scheme://host[:port]) may open the site's WebSockets besides
# the site's own pages (same scheme, host and port as the socket, the host in ALLOWED_HOSTS):
# games/sockets.py.
DURAK_ALLOWED_ORIGINS = env_origins("DURAK_ALLOWED_ORIGINS")

INSTALLED_APPS = [
    "tournaments.console.site.ConsoleAdminConfig",  # Django's admin, its menu in workflow order
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and Redoc from our own static files, no CDN
    "corsheaders",
    "channels",
    "axes",  # login throttling and lockout (the "Auth" section below)
    "games",
    "tournaments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    # The API answers in English unless Accept-Language asks for Russian (the pages keep theirs).
    "tournaments.api.language.ApiLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # After XFrameOptions, so that it runs before it on the way out (durak_site/security.py).
    "durak_site.security.SecurityHeadersMiddleware",
    # A view failing for a database out of reach answers 503, not a server error's page.
    "durak_site.errors.DatabaseDownMiddleware",
    # Last, as django-axes asks: it turns a login refused for a lockout into the lockout answer.
    "axes.middleware.AxesMiddleware",
]

if not DEBUG:
    # Production serves its collected static files itself; runserver does it in development.
    MIDDLEWARE.insert(1, "whitenoise.middleware.WhiteNoiseMiddleware")

# A benchmark serves one extra view beside the site's (bench/api_urls.py); nothing else sets it.
ROOT_URLCONF = env_str("DURAK_ROOT_URLCONF", "durak_site.urls")
ASGI_APPLICATION = "durak_site.asgi.application"
WSGI_APPLICATION = "durak_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
DATABASE_URL = env_url("DATABASE_URL", ("postgres", "postgresql", "sqlite"))
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        options = DATABASES["default"].setdefault("OPTIONS", {})
        # Fail fast instead of hanging a request or a worker on a dead database.
        options["connect_timeout"] = 5
        # A pool per process (psycopg_pool): under ASGI every request runs its sync code in a
        # thread of its own, so a connection kept per thread (CONN_MAX_AGE) would be left behind
        # by each request until PostgreSQL runs out of connections. Each request, job and live
        # table call takes a connection from the pool and gives it back.
        options["pool"] = {
            "min_size": 1,
            "max_size": env_int("DURAK_DB_POOL_SIZE", 10, minimum=1),
            "timeout": 10,
        }
        DATABASES["default"]["CONN_MAX_AGE"] = 0
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": env_str("DURAK_SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            # Several threads (ASGI, eager tasks) write: wait for the lock rather than fail.
            "OPTIONS": {
                "timeout": 20,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
            # A file, not shared-cache memory: concurrent test threads then wait for the
            # write lock (as in production) instead of failing with "table is locked".
            "TEST": {"NAME": env_str("DURAK_SQLITE_TEST_PATH", str(BASE_DIR / ".test-db.sqlite3"))},
        }
    }
USES_POSTGRES = DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
# Threads (each with its own connection) for the database calls of one ASGI process's sockets
# (``durak_site.dbthreads``); SQLite always uses one. More threads only fight over the GIL
# (``docs/performance.md``): more capacity comes from more server processes.
DURAK_DB_THREADS = env_int("DURAK_DB_THREADS", 2, minimum=1)
# Connections per event loop for the one-statement writes made on the loop itself (the live
# table's actions: ``durak_site.dbloop``), PostgreSQL only.
DURAK_DB_LOOP_CONNECTIONS = env_int("DURAK_DB_LOOP_CONNECTIONS", 8, minimum=1)
# Sockets (live tables and feeds) open at once per user and per address (``games.socket_cap``;
# across processes with Redis); 0: no cap.
DURAK_SOCKETS_PER_USER = env_int("DURAK_SOCKETS_PER_USER", 20, minimum=0)
DURAK_SOCKETS_PER_ADDRESS = env_int("DURAK_SOCKETS_PER_ADDRESS", 100, minimum=0)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: channel layer, cache, Celery --------------------------------------------------------
REDIS_URL = env_url("REDIS_URL", ("redis", "rediss"))
# Per server process, for the channel layer's connection pool.
REDIS_MAX_CONNECTIONS = env_int("DURAK_REDIS_MAX_CONNECTIONS", 2000, minimum=10)

CHANNEL_LAYERS: dict[str, dict[str, Any]]
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # Redis pub/sub: a broadcast is one PUBLISH, pushed to each server process that has a
            # socket at the table (the sorted-set layer's polling was the servers' queue:
            # ``docs/performance.md``). Pub/sub delivers at most once, which is what a
            # state push needs: every state message is complete, and a socket that missed one
            # (a dropped Redis connection) gets the next, or asks with ``sync``.
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {
                # redis-py 8's defaults fail under load: its pools allow 100 connections (a burst
                # of sockets joining in one server failed with "Too many connections").
                "hosts": [
                    {
                        "address": REDIS_URL,
                        "max_connections": REDIS_MAX_CONNECTIONS,
                        "socket_timeout": 15,
                        # RESP2: redis-py's pure-Python RESP3 parser (its default) took about
                        # 1.5 times the CPU per pub/sub message, and every state reaches every
                        # server process of its table as one (``docs/performance.md``).
                        "protocol": 2,
                    }
                ],
                # Pub/sub channels are one namespace for the whole Redis server, whatever its
                # database: the database's number in the prefix keeps two services (or two
                # checkouts) that share a Redis server on different databases apart.
                "prefix": f"durak:asgi:{redis_database(REDIS_URL)}",
                # msgpack, each message decoded once per process (``durak_site.layerformat``).
                "serializer_format": layerformat.FORMAT,
            },
        }
    }
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "durak",
            "TIMEOUT": 300,
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Celery reads every CELERY_* name below (durak_site/celery.py); reasons beside each choice.
CELERY_BROKER_URL = env_optional("CELERY_BROKER_URL") or REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or "cache+memory://"
# No broker configured: run tasks in-process, so the embedded demo needs no worker. Errors
# propagate so that a failing task fails the caller (and the test) instead of vanishing.
CELERY_TASK_ALWAYS_EAGER = env_bool(
    "CELERY_TASK_ALWAYS_EAGER", default=CELERY_BROKER_URL == "memory://"
)
CELERY_TASK_EAGER_PROPAGATES = True
# How a job survives a crash. The database says what is due, not the broker: the reconciler
# (beat, ``tournaments.reconcile``) sends again the job of any work that is due and not done, so
# a message lost anywhere costs seconds, not the visibility timeout (``durak_site.jobs``).
# Acknowledge after the job ran (acks_late): a worker killed mid-job leaves its message
# unacknowledged in Redis, which delivers it again after the visibility timeout; by then the
# reconciler has long done the work and the late copy finds nothing to do (every job is
# idempotent: a conditional UPDATE or a row lock and a status check).
CELERY_TASK_ACKS_LATE = True
# A pool process that dies mid-job (out of memory, a crash) has its message acknowledged as
# failed, not put back: put back, a job that kills its process would be delivered again at once
# and for ever. The reconciler sends the job again within seconds, then once a minute while it
# keeps failing (its lease, ``durak_site.jobs``).
CELERY_TASK_REJECT_ON_WORKER_LOST = False
# One message at a time per worker process: pairing and round jobs are long and uneven, and
# a prefetched message would wait behind a slow one while another worker idles. (A killed
# worker then holds only the job it ran, plus its delayed ones: move clocks and webhook
# retries, which the reconciler and the webhooks sweep find by their due time.)
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A runaway job is stopped: soft limit raises inside the task (it can clean up), the hard
# limit kills the process.
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 240, minimum=1)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 300, minimum=1)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    # Redis gives an unacknowledged message to another worker after this long. It is not how
    # we recover (the reconciler is), so it only has to be long enough never to hand over a
    # message a live worker still holds: a running job (the hard limit, 300 s) or a delayed one,
    # which a worker holds unacknowledged until it is due (the webhook backoff's 45 minutes, a
    # move clock). Shorter, Redis would deliver every long countdown twice, and again.
    # Countdowns longer than this less the hard limit are not sent to the broker at all
    # (``durak_site.jobs.longest_countdown``); the reconciler starts them when due.
    "visibility_timeout": 3600,
    # Publishing never waits long on a Redis that is down or unreachable: a request that
    # enqueues a job after its commit gives up after these, the job is logged as not sent and
    # the reconciler sends it. (Unbounded, one apply_async blocked 19 s.) socket_timeout
    # exceeds the workers' BRPOP wait (1 s).
    "socket_connect_timeout": 2,
    "socket_timeout": 3,
}
# One retry at once (a pooled connection that Redis closed when it restarted fails the first
# try; a fresh one then works), then the caller goes on.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.5,
    "interval_max": 0.5,
}
CELERY_BROKER_CONNECTION_TIMEOUT = 2
# The result backend likewise (the jobs ignore their results; ``ping`` reads one): bounded
# sockets, and a few quick reconnects instead of twenty at a second each.
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = 2
CELERY_REDIS_SOCKET_TIMEOUT = 3
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
    "retry_policy": {"max_retries": 2, "interval_start": 0, "interval_step": 0.5, "interval_max": 1}
}
# A worker whose Redis went away keeps reconnecting until it is back (the default gives up
# after 100 tries and the worker exits), and keeps running the jobs it has: their work is in
# PostgreSQL, and their unacknowledged messages are delivered again later and find it done.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
CELERY_RESULT_EXPIRES = 24 * 3600
CELERY_TASK_DEFAULT_QUEUE = env_str("DURAK_CELERY_QUEUE", "durak")
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# --- Auth, REST API --------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# The players' own pages (tournaments/site/accounts); the console keeps the admin's login.
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "my-games"
LOGOUT_REDIRECT_URL = "home"
# A password reset link lasts this long (seconds).
PASSWORD_RESET_TIMEOUT = env_int("DURAK_PASSWORD_RESET_SECONDS", 3 * 24 * 3600, minimum=60)

# Every login goes through ``authenticate(request, ...)`` (the admin's and the players'), which
# django-axes watches (tournaments/site/accounts/lockout.py), with two locks:
# - after DURAK_LOGIN_FAILURE_LIMIT failures of one username from one address, logins of that pair
#   are refused; by the pair, not the address alone: a club's players share one address at a
#   tournament, and one of them mistyping must not lock the room out;
# - after DURAK_LOGIN_USERNAME_FAILURE_LIMIT failures of one username from any addresses, logins of
#   that username are refused from everywhere: guesses spread over many addresses stop too.
# Either answers HTTP 429, code ``login_locked_out``, for DURAK_LOGIN_COOLOFF_MINUTES (0: until
# ``manage.py axes_reset`` or ``axes_reset_username``). The attempts live in the database, so the
# counts hold across server processes and restarts. API tokens never go through a login.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("DURAK_LOGIN_FAILURE_LIMIT", 5, minimum=1)
DURAK_LOGIN_USERNAME_FAILURE_LIMIT = env_int("DURAK_LOGIN_USERNAME_FAILURE_LIMIT", 20, minimum=1)
if DURAK_LOGIN_USERNAME_FAILURE_LIMIT < AXES_FAILURE_LIMIT:
    raise EnvError(
        "DURAK_LOGIN_USERNAME_FAILURE_LIMIT (failures from any addresses) must be at least "
        f"DURAK_LOGIN_FAILURE_LIMIT (from one address), {AXES_FAILURE_LIMIT}"
    )
LOGIN_COOLOFF_MINUTES = env_int("DURAK_LOGIN_COOLOFF_MINUTES", 15, minimum=0)
AXES_COOLOFF_TIME = timedelta(minutes=LOGIN_COOLOFF_MINUTES) if LOGIN_COOLOFF_MINUTES else None
# The pair's count and the username's count (the handler holds each to its own limit).
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "username"]
AXES_HANDLER = "tournaments.site.accounts.lockout.LockoutHandler"
AXES_RESET_ON_SUCCESS = True
# Locks are lifted with the management commands (README, "Accounts and login"); the console shows
# only the service's own records.
AXES_ENABLE_ADMIN = False
AXES_LOCKOUT_CALLABLE = "tournaments.site.accounts.lockout.lockout_response"
# The client's address: the ASGI scope's client (durak_site/clientaddr.py), never a header.
AXES_CLIENT_IP_CALLABLE = "durak_site.clientaddr.client_address"

# --- Email: password resets -----------------------------------------------------------------
# Printed on the console unless EMAIL_HOST names an SMTP server.
EMAIL_HOST = env_str("EMAIL_HOST", "")
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
# STARTTLS on 587 unless EMAIL_USE_SSL asks for TLS from the start (port 465).
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", default=False)
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=not EMAIL_USE_SSL)
EMAIL_PORT = env_int("EMAIL_PORT", 465 if EMAIL_USE_SSL else 587, minimum=1)
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise EnvError("EMAIL_USE_TLS and EMAIL_USE_SSL exclude each other: set one of them to 0")
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10, minimum=1)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "durak@localhost")

# The scoreboard API (tournaments/api): rates per anonymous IP and per token, in the shared cache
# (Redis on the real stack); they limit load, they are not a security control. The address is
# durak_site/clientaddr.py's (the throttles' get_ident); NUM_PROXIES 0 besides, so that DRF's own
# get_ident would not read X-Forwarded-For either.
# "off" switches a rate off (a benchmark, a fuzzer: one client far above any real rate).
API_RATE_ANON = env_str("DURAK_API_RATE_ANON", "120/min")
API_RATE_USER = env_str("DURAK_API_RATE_USER", "600/min")
API_RATE_WRITE = env_str("DURAK_API_RATE_WRITE", "60/min")
# The API's NDJSON streams (tournaments/api/feed.py): a keep-alive line (empty) every
# KEEPALIVE seconds of silence; the log or the table is read again at least every POLL_MS (a
# safety net: the channel layer wakes a stream at once); a stream ends after SECONDS (the
# client reconnects with ?since=).
STREAM_KEEPALIVE_SECONDS = env_int("DURAK_STREAM_KEEPALIVE_SECONDS", 15, minimum=1)
STREAM_POLL_MS = env_int("DURAK_STREAM_POLL_MS", 3000, minimum=50)
STREAM_SECONDS = env_int("DURAK_STREAM_SECONDS", 3600, minimum=1)
# A refusal an API operation's schema does not declare raises (a 500), so a test or the fuzzer that
# provokes it fails: on in the tests (tests/conftest.py) and wherever DURAK_API_CHECK_ERROR_CODES.
API_CHECK_ERROR_CODES = env_bool("DURAK_API_CHECK_ERROR_CODES", default=False)
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # `Authorization: Token <key>` or `Authorization: Bearer <key>`: first, so that a bad
        # key is a 401 with `WWW-Authenticate: Token` (DRF asks the first class), not a 403.
        "tournaments.api.auth.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    # DRF's JSON, its bytes made by orjson (tournaments/api/renderers.py); the browsable API.
    "DEFAULT_RENDERER_CLASSES": [
        "tournaments.api.renderers.FastJSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 100,
    "EXCEPTION_HANDLER": "durak_site.errors.api_exception_handler",
    # drf-spectacular's, with the contract every operation shares (tournaments/api/contract.py).
    "DEFAULT_SCHEMA_CLASS": "tournaments.api.contract.ContractSchema",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_THROTTLE_RATES": {
        scope: None if rate == "off" else rate
        for scope, rate in (
            ("anon", API_RATE_ANON),
            ("user", API_RATE_USER),
            ("write", API_RATE_WRITE),
        )
    },
    "NUM_PROXIES": 0,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Durak tournaments API",
    "DESCRIPTION": (
        "Every public fact of an event: tournaments, stages, rounds, tables, results, standings, "
        "knockout trees, leagues, players and games. Read endpoints need no login (a private "
        "tournament only for its players, referees and organiser); writes take a token "
        "(`Authorization: Token <key>` or `Bearer <key>`). **Authentication**: make a personal "
        "token on the site's `/accounts/tokens/` page (signed in: name, scope, optional "
        "expiry; the key is shown once). A `read` token reads as you and watches your tables; "
        "any other method with it is `403` `token_scope`. A `write` token also acts as you. A "
        "revoked, expired or unknown token is `401` `authentication_failed`. Errors are "
        '`{"code", "message", "fields"}`, in English unless `Accept-Language` asks for Russian '
        "(`ru`): 400 for a request that cannot be read (an unknown query parameter, a value "
        "outside its type or bounds, a body that is not JSON), 409 when the event's state "
        "refuses it, 422 for values that break a rule. Every read has an `ETag` (`304` for "
        "`If-None-Match`), every counted answer `RateLimit-*` headers. Start at `/api/v1/`."
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # The operations' OpenAPI links, from one table (tournaments/api/openapi_links.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "tournaments.api.openapi_links.add_links",
    ],
    # One schema component per status enum, however many serializers show it.
    "ENUM_NAME_OVERRIDES": {
        "EntryStatusEnum": "tournaments.models.Entry.Status",
        "RoundStatusEnum": "tournaments.models.Round.Status",
        "TableStatusEnum": "tournaments.models.Table.Status",
        "TableResultStatusEnum": "tournaments.models.TableResult.Status",
        "TournamentStatusEnum": "tournaments.models.Tournament.Status",
        "StageStatusEnum": "tournaments.models.Stage.Status",
        "GameStatusEnum": "games.models.Game.Status",
    },
}
# Any origin may read the public API (no cookies cross: credentials stay off); writes take a
# token in the Authorization header.
CORS_URLS_REGEX = r"^/api/.*$"
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_METHODS = ["GET", "HEAD", "OPTIONS"]
# An overlay on another origin revalidates (If-None-Match, If-Modified-Since), retries a write
# safely (Idempotency-Key) and reads what the answers say about caching and rates.
CORS_ALLOW_HEADERS = [
    *default_headers,
    "accept-language",
    "if-none-match",
    "if-modified-since",
    "idempotency-key",
]
CORS_EXPOSE_HEADERS = [
    "ETag",
    "Last-Modified",
    "Retry-After",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
    "Idempotent-Replayed",
    "Content-Language",
]
# Webhook deliveries go to public addresses only, unless this is on (the tests' local receiver).
WEBHOOKS_ALLOW_PRIVATE = env_bool("DURAK_WEBHOOKS_ALLOW_PRIVATE", default=False)

# --- Internationalisation: Russian first, English available -----------------------------------
LANGUAGE_CODE = "ru"
LANGUAGES = [("ru", "Русский"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files -----------------------------------------------------------------------------
STATIC_URL = "static/"
# Where `collectstatic` puts the files that production serves (WhiteNoise, its manifest).
STATIC_ROOT = Path(env_str("DURAK_STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# --- Security: production is strict, and `check --deploy` is clean -----------------------------
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
    # A load balancer's or a start script's health probe talks plain HTTP to the server itself.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 31536000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
# TLS ended by a reverse proxy: the proxy's X-Forwarded-Proto is believed where its
# X-Forwarded-For is, by the ASGI server for the proxies of DURAK_TRUSTED_PROXIES only (it sets the
# scope's scheme, which Django and the sockets' Origin check read). No SECURE_PROXY_SSL_HEADER:
# Django would take that header from any client, a direct one included.
DJANGO_BEHIND_TLS_PROXY = env_bool("DJANGO_BEHIND_TLS_PROXY", default=False)
if DJANGO_BEHIND_TLS_PROXY and not DURAK_TRUSTED_PROXIES:
    raise EnvError(
        f"DJANGO_BEHIND_TLS_PROXY=1 needs {TRUSTED_PROXIES}: the address of the proxy whose "
        "X-Forwarded-Proto says that the client came over TLS"
    )
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy (django-csp, durak_site/security.py), in development too, so that the
# browser tests run under it. Scripts: our own files, or an inline one with the request's nonce
# (no inline event handler anywhere). Styles may be inline: the admin, Swagger UI and Redoc set
# style attributes and <style> blocks, and a style cannot run code.
CSP_REPORT_URI = env_optional("DURAK_CSP_REPORT_URI")
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, UNSAFE_INLINE],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],  # the page's own WebSocket (ws/wss of its origin) included
        "worker-src": [SELF, "blob:"],  # Redoc's search worker
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
        "report-uri": CSP_REPORT_URI,
    }
}
# The embeds (/embed/...) are meant to be framed by club and venue sites, and by a page saved on a
# computer: unset, anyone may frame them (no frame-ancestors: "*" would refuse a file: page);
# else only these CSP frame-ancestors sources may. No other page may be framed at all.
DURAK_EMBED_PATHS = ("/embed/",)
DURAK_EMBED_FRAME_ANCESTORS = env_list("DURAK_EMBED_FRAME_ANCESTORS")
DURAK_PERMISSIONS_POLICY = (
    "accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), "
    "microphone=(), payment=(), usb=()"
)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    # No credentials of a URL in a log line (durak_site/logs.py; the server's own loggers too).
    "filters": {"redact": {"()": "durak_site.logs.RedactSecrets"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["redact"]}
    },
    "root": {"handlers": ["console"], "level": env_str("DJANGO_LOG_LEVEL", "INFO")},
    # One line per task run is noise at tournament scale; failures are still logged.
    "loggers": {
        "celery.app.trace": {"level": env_str("DURAK_TASK_LOG_LEVEL", "WARNING")},
        # django-axes greets every process start; its failed logins and lockouts are warnings.
        "axes.apps": {"level": "WARNING"},
    },
}
