"""Settings for the Durak tournament service: one file, every value from the environment.

Nothing set: the embedded defaults (SQLite file, in-memory channel layer, Celery eager),
which is what `python3 dev.py demo` and the plain test run use.
`DATABASE_URL=postgres://...` and `REDIS_URL=redis://...`: PostgreSQL through psycopg 3, the
Redis channel layer and cache, Celery broker and results on Redis with real workers.
`DJANGO_DEBUG=0`: production; then `DJANGO_SECRET_KEY` and `DJANGO_ALLOWED_HOSTS` are required.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dj_database_url
import django_stubs_ext

from durak_site.env import (
    EnvError,
    env_bool,
    env_int,
    env_list,
    env_optional,
    env_str,
    env_url,
)

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

INSTALLED_APPS = [
    "django.contrib.admin",
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
    "games",
    "tournaments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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
                    }
                ],
                "prefix": "durak:asgi",
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
# Acknowledge after the task ran, and re-queue it if the worker process dies: a job killed
# half-way runs again. This is safe only because every task is idempotent (claims its work
# with a conditional UPDATE, unique constraints as the last guard).
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# One message at a time per worker process: pairing and round jobs are long and uneven, and
# a prefetched message would wait behind a slow one while another worker idles.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A runaway job is stopped: soft limit raises inside the task (it can clean up), the hard
# limit kills the process (acks_late then re-queues it).
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 240, minimum=1)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 300, minimum=1)
# Redis redelivers an unacknowledged message after the visibility timeout; it must exceed the
# longest countdown we schedule (move clocks are minutes) and the hard time limit.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
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
LOGIN_URL = "/admin/login/"

# The scoreboard API (tournaments/api): rates per anonymous IP and per token, in the shared cache
# (Redis on the real stack); they limit load, they are not a security control. NUM_PROXIES: the
# reverse proxies in front of the service, so that the client's IP is the one throttled.
# "off" switches a rate off (a benchmark, a fuzzer: one client far above any real rate).
API_RATE_ANON = env_str("DURAK_API_RATE_ANON", "120/min")
API_RATE_USER = env_str("DURAK_API_RATE_USER", "600/min")
API_RATE_WRITE = env_str("DURAK_API_RATE_WRITE", "60/min")
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 100,
    "EXCEPTION_HANDLER": "durak_site.errors.api_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_THROTTLE_RATES": {
        scope: None if rate == "off" else rate
        for scope, rate in (
            ("anon", API_RATE_ANON),
            ("user", API_RATE_USER),
            ("write", API_RATE_WRITE),
        )
    },
    "NUM_PROXIES": env_int("DURAK_NUM_PROXIES", 0, minimum=0),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Durak tournaments API",
    "DESCRIPTION": (
        "Every public fact of an event: tournaments, stages, rounds, tables, results, standings, "
        "knockout trees, leagues, players and games. Read endpoints need no login (a private "
        "tournament only for its players, referees and organiser); writes take a token. Errors "
        'are `{"code", "message", "fields"}`.'
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
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
CORS_EXPOSE_HEADERS = ["ETag", "Last-Modified", "Retry-After"]
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
STATIC_ROOT = BASE_DIR / "staticfiles"
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
    SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 31536000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    if env_bool("DJANGO_BEHIND_TLS_PROXY", default=False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("DJANGO_LOG_LEVEL", "INFO")},
    # One line per task run is noise at tournament scale; failures are still logged.
    "loggers": {"celery.app.trace": {"level": env_str("DURAK_TASK_LOG_LEVEL", "WARNING")}},
}
