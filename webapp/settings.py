"""Django settings for Whatif, read from environment variables.

With nothing set: SQLite under .data/, DEBUG on, and kombu's filesystem broker
under .data/broker, so `make run` needs no server. DATABASE_URL (or the PG*
variables) switches to PostgreSQL, REDIS_URL (or CELERY_BROKER_URL) to Redis.
"""

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("DATA_DIR", BASE_DIR / ".data"))


def envbool(name, default):
    value = os.environ.get(name, default)
    if value in ("True", "true", "1", "yes", "on"):
        return True
    if value in ("False", "false", "0", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {value!r}")


def envint(name, default):
    value = os.environ.get(name, default)
    if value == "None":
        return None
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer or None, not {value!r}")


def envlist(name, default):
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = envbool("DEBUG", "True")
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", "")

# HTTPS. Off while DEBUG is on; with DEBUG=false every one defaults on, so
# `manage.py check --deploy` passes. Behind a TLS-terminating proxy set
# SECURE_PROXY_SSL_HEADER=true (it must overwrite X-Forwarded-Proto). See README "Deployment".
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", str(not DEBUG))
SESSION_COOKIE_SECURE = envbool("SESSION_COOKIE_SECURE", str(not DEBUG))
CSRF_COOKIE_SECURE = envbool("CSRF_COOKIE_SECURE", str(not DEBUG))
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", "0" if DEBUG else "31536000")
SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", str(not DEBUG))
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", str(not DEBUG))
if envbool("SECURE_PROXY_SSL_HEADER", "False"):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
USE_X_FORWARDED_HOST = envbool("USE_X_FORWARDED_HOST", "False")
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

# Size limits (README "Configuration"): a larger request body answers 413, a larger
# or deeper scenario text 400 naming the limit. The defaults hold Kubernetes' documented
# scalability limit, 5,000 nodes with 150,000 pods: `kubectl get -o yaml` prints that as
# about 300 MB. A gzip-compressed body or .gz file is held to the same limits once expanded.
MAX_REQUEST_BYTES = envint("MAX_REQUEST_BYTES", str(512 * 1024 * 1024))
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BYTES
MANIFEST_MAX_BYTES = envint("MANIFEST_MAX_BYTES", str(384 * 1024 * 1024))
SCENARIO_MAX_NODES = envint("SCENARIO_MAX_NODES", "5000")
SCENARIO_MAX_PODS = envint("SCENARIO_MAX_PODS", "150000")
MANIFEST_MAX_NESTING = envint("MANIFEST_MAX_NESTING", "50")
# Manifests larger than this are not put into a page whole (a browser lays a textarea of a few
# MB out in seconds): pages show their first lines, a download link and a file upload instead.
EDITOR_MAX_BYTES = envint("EDITOR_MAX_BYTES", str(2 * 1024 * 1024))
# Each web process keeps the results of the last few runs its pages read (a result is read whole by every page
# of a run, and never changes once stored).
RESULT_CACHE_RUNS = envint("RESULT_CACHE_RUNS", "4")
# A result stored in more than this many bytes (compressed) is read one top-level part at a time, as pages ask.
RESULT_PARTS_MIN_BYTES = envint("RESULT_PARTS_MIN_BYTES", str(1024 * 1024))
# A result whose JSON text is at least this many bytes is also kept deflated by the worker, and the API sends it to a
# client that accepts gzip as it is kept (writing a 136 MB result out as text took PostgreSQL over a second).
RESULT_DEFLATE_MIN_BYTES = envint("RESULT_DEFLATE_MIN_BYTES", str(8 * 1024 * 1024))
# A cached result or parsed text from at least this many bytes is kept out of the cycle collector's scans
# (scenarios/frozen.py).
FROZEN_CACHE_MIN_BYTES = envint("FROZEN_CACHE_MIN_BYTES", str(16 * 1024 * 1024))
# Manifest texts are stored once and compressed; each process keeps the texts it read last, decompressed,
# up to this many bytes (a worker running a sweep's cells reads each text once).
TEXT_CACHE_BYTES = envint("TEXT_CACHE_BYTES", str(640 * 1024 * 1024))
# What pages work out from a manifest text alone (the quick-edit outline) is kept in the database for texts of
# at least this many characters, so that no process parses a large text again to show a page.
TEXT_FACT_MIN_BYTES = envint("TEXT_FACT_MIN_BYTES", str(1024 * 1024))

# Login throttling: the login page locks a username (and an address) out after
# LOGIN_MAX_FAILURES failures within LOGIN_LOCKOUT_SECONDS; the token endpoint has a DRF throttle.
LOGIN_MAX_FAILURES = envint("LOGIN_MAX_FAILURES", "5")
LOGIN_LOCKOUT_SECONDS = envint("LOGIN_LOCKOUT_SECONDS", "900")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "template_partials",
    "webapp.scenarios",
    "webapp.api",
    "webapp.front",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "webapp.middleware.SecurityHeadersMiddleware",
    # After the two above, so its 413 has the security headers too; before anything reads a body.
    "webapp.middleware.RequestSizeLimitMiddleware",
    "webapp.middleware.GzipRequestMiddleware",
    # Before anything that reads the database (sessions, auth), so a retried read runs them again too.
    "webapp.middleware.RetryReadAfterDroppedConnectionMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "webapp.middleware.RejectNulQueryMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "webapp.middleware.QueueUnavailableMiddleware",
]

ROOT_URLCONF = "webapp.urls"
WSGI_APPLICATION = "webapp.wsgi.application"

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
            ],
        },
    },
]


def database_settings():
    if os.environ.get("DATABASE_URL"):
        import dj_database_url

        # Health checks: a kept connection the server dropped is replaced before a request (or task) uses it.
        return dj_database_url.parse(os.environ["DATABASE_URL"], conn_max_age=60, conn_health_checks=True)
    if os.environ.get("PGDATABASE"):
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": os.environ["PGDATABASE"],
            "USER": os.environ.get("PGUSER", "postgres"),
            "PASSWORD": os.environ.get("PGPASSWORD", ""),
            "HOST": os.environ.get("PGHOST", "127.0.0.1"),
            "PORT": os.environ.get("PGPORT", "5432"),
            "CONN_HEALTH_CHECKS": True,
        }
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("SQLITE_PATH", str(DATA_DIR / "db.sqlite3")),
        # A file, not :memory:, so a worker subprocess can share the test database.
        "TEST": {"NAME": str(DATA_DIR / "test.sqlite3")},
        # Parallel requests on one file: readers never wait for the writer (WAL), a writer waits its turn
        # (busy timeout, seconds) instead of failing, and a transaction that will write takes the write lock
        # when it begins (IMMEDIATE), so two of them can never deadlock upgrading a read lock.
        "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE",
                    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL"},
    }


DATABASES = {"default": database_settings()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
if envbool("FAST_PASSWORD_HASHER", "False"):  # tests only
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", DATA_DIR / "staticfiles"))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns when it is missing

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "scenario-list"
LOGOUT_REDIRECT_URL = "login"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "webapp.api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": [
        "webapp.api.parsers.DepthLimitedJSONParser",
        "webapp.api.parsers.YAMLParser",
        "webapp.api.parsers.XYAMLParser",
        "webapp.api.parsers.TextYAMLParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "webapp.api.schema.AutoSchema",
    "EXCEPTION_HANDLER": "webapp.api.exceptions.exception_handler",
    # POST /api/auth/token/ (password for token) per client address.
    "DEFAULT_THROTTLE_RATES": {"auth-token": os.environ.get("TOKEN_THROTTLE_RATE", "10/minute")},
}

# The cache holds login and token-endpoint throttle counters. Per process unless
# CACHE_URL names a shared Redis (do that with several web processes).
if os.environ.get("CACHE_URL"):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                          "LOCATION": os.environ["CACHE_URL"], "KEY_PREFIX": "whatif"}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

SPECTACULAR_SETTINGS = {
    "TITLE": "Whatif API",
    "DESCRIPTION": "Store Kubernetes scheduling scenarios and run what-if simulations.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "webapp.api.schema.postprocess"],
    # enums named after their model where two models have a field of the same name
    "ENUM_NAME_OVERRIDES": {
        "AnalysisKindEnum": [("capacity", "Nodes to add"), ("replicas", "Replicas that fit"), ("zones", "Losing a zone"),
                             ("drain", "Draining nodes"), ("tuning", "Scoring configurations")],
        "AnalysisStatusEnum": [(v, v.capitalize()) for v in ("queued", "running", "succeeded", "failed", "cancelled")],
        "KindEnum": [("simulate", "Simulate")],  # a run's (the names they had before analyses came)
        "StatusEnum": [(v, v.capitalize()) for v in ("queued", "running", "succeeded", "failed")],
    },
}

# Celery: the worker and the web process read the same settings.
REDIS_URL = os.environ.get("REDIS_URL", "")
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or REDIS_URL or "filesystem://"
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or None
CELERY_TASK_IGNORE_RESULT = True  # the Run row is the record of truth
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_SERIALIZER = "json"
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "celery")
if CELERY_BROKER_URL.startswith("filesystem://"):
    BROKER_DIR = Path(os.environ.get("BROKER_DIR", DATA_DIR / "broker"))
    for sub in ("queue", "processed", "control"):
        (BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)  # kombu does not create them
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        # The same folder in and out: the web process and the worker share one config.
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
        "polling_interval": float(os.environ.get("BROKER_POLL", "0.2")),
    }

# A simulation is bounded: the soft limit lets the task record "failed",
# the hard limit kills it; the stuck-run reaper takes runs whose worker vanished.
RUN_TIME_LIMIT = envint("RUN_TIME_LIMIT", "300")
RUN_SOFT_TIME_LIMIT = max(1, RUN_TIME_LIMIT - 10)
RUN_QUEUED_RESEND_AFTER = envint("RUN_QUEUED_RESEND_AFTER", "600")
# A page showing a run someone just started asks for it every RUN_POLL_FAST_MS while the run is younger than
# RUN_POLL_FAST_SECONDS and unfinished, then every second (webapp/front/templatetags/polling.py).
RUN_POLL_FAST_MS = max(50, envint("RUN_POLL_FAST_MS", "250"))
RUN_POLL_FAST_SECONDS = envint("RUN_POLL_FAST_SECONDS", "10")
# The draft editor's runs panel, polled while a run of it is unfinished, is answered as soon as the run moves on
# (its counts stored, or it finished) or after at most RUN_POLL_WAIT_MS with no content (0: at once). Each such
# poll holds a request thread that long: docker-compose.yml's gunicorn serves with threads.
RUN_POLL_WAIT_MS = max(0, envint("RUN_POLL_WAIT_MS", "1000"))
# What a quick edit's request leaves for after its response (the draft's documents kept on disk, the caches'
# garbage collected) waits until the run it queued has its counts stored, at most this long
# (webapp/scenarios/after_response.py); 0: done at once.
AFTER_RESPONSE_HOLD_SECONDS = max(0, envint("AFTER_RESPONSE_HOLD_SECONDS", "60"))
# Which pods a run explains while it runs: "failed" (those left pending; any other pod's
# explanation is computed on demand), "all", or "none".
_RUN_DETAILS = {"failed": "failed", "all": True, "none": False}
if os.environ.get("RUN_DETAIL", "failed") not in _RUN_DETAILS:
    raise ImproperlyConfigured(
        f"RUN_DETAIL must be failed, all or none, not {os.environ['RUN_DETAIL']!r}")
RUN_DETAIL = _RUN_DETAILS[os.environ.get("RUN_DETAIL", "failed")]
# Loaded scenarios kept on disk for the workers (webapp/scenarios/engine.py); "" turns it off.
ENGINE_CACHE_DIR = os.environ.get("ENGINE_CACHE_DIR", str(DATA_DIR / "engine-cache"))
# A quick edit of a draft text at least this large that changes only scheduling directives has its run queued
# before its new text is written (the worker starts from the scenario it ran before: engine.scenario_ahead); a
# negative value turns it off. A worker keeps the latest scenario it ran from a text up to ENGINE_KEEP_LOADED_BYTES
# in memory for that, and that run's cycles (scheduler_core.RunMemory: the edit's run takes over those before the
# first edited pod) (0: none).
EDIT_RUN_AHEAD_MIN_BYTES = envint("EDIT_RUN_AHEAD_MIN_BYTES", str(4 * 1024 * 1024))
ENGINE_KEEP_LOADED_BYTES = envint("ENGINE_KEEP_LOADED_BYTES", str(64 * 1024 * 1024))
RUN_TEST_DELAY = float(os.environ.get("RUN_TEST_DELAY", "0"))  # tests only: seconds each run sleeps first
# Publishing a run gives up quickly when the broker is down: the API answers 503 and the run stays queued.
RUN_PUBLISH_RETRY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}
CELERY_BROKER_CONNECTION_TIMEOUT = float(os.environ.get("CELERY_BROKER_CONNECTION_TIMEOUT", "2"))
CELERY_TASK_REJECT_ON_WORKER_LOST = True
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # Unacked runs of a worker that vanished (SIGKILL, lost machine) come back after this long;
    # it is longer than a run may take, so a live run is never handed to a second worker.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": envint("RUN_VISIBILITY_TIMEOUT", str(RUN_TIME_LIMIT + 60)),
    }
REAP_INTERVAL = envint("REAP_INTERVAL", "60")
CELERY_BEAT_SCHEDULE = {
    "reap-stuck-runs": {"task": "webapp.scenarios.tasks.reap_stuck_runs", "schedule": REAP_INTERVAL},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
