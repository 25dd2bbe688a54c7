"""corelsweb settings, all from the environment, with zero-install defaults.

With nothing set: SQLite in ``var/`` and Celery's server-less ``filesystem://``
broker. ``DATABASE_URL`` switches to PostgreSQL (or any URL below), and
``CELERY_BROKER_URL`` or ``REDIS_URL`` to Redis.
"""

import os
import secrets
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
# The project's top level: templates/ and static/ live there (an installed image points CORELSWEB_ROOT at its copy).
ROOT_DIR = Path(os.environ.get("CORELSWEB_ROOT", BASE_DIR))
VAR_DIR = Path(os.environ.get("CORELSWEB_VAR_DIR", BASE_DIR / "var"))


def envbool(name, default):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {value!r}")


def envint(name, default):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}") from None


def envlist(name, default):
    value = os.environ.get(name)
    return [v.strip() for v in value.split(",") if v.strip()] if value else default


def envsecret(name):
    """Return the secret from the environment, else one kept in ``var/`` (created once)."""
    value = os.environ.get(name)
    if value:
        return value
    path = VAR_DIR / "secret_key"
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


def database_from_url(url):
    """Return a Django DATABASES entry for a ``postgres://`` or ``sqlite:///`` URL."""
    parts = urlparse(url)
    if parts.scheme in ("postgres", "postgresql", "pgsql"):
        options = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parts.path.lstrip("/")) or "postgres",
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": parts.hostname or "",
            "PORT": str(parts.port or ""),
            "OPTIONS": options,
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
        }
    if parts.scheme == "sqlite":
        return sqlite_database(Path(unquote(parts.path)))
    raise ImproperlyConfigured(f"DATABASE_URL scheme {parts.scheme!r} is not supported (use postgres:// or sqlite:///)")


def sqlite_database(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(path),
        # The worker and the web server write the same file: wait for locks, don't fail.
        "OPTIONS": {"timeout": 30, "transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"},
    }


SECRET_KEY = envsecret("SECRET_KEY")
DEBUG = envbool("DEBUG", False)
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", [])
SITE_NAME = "corelsweb"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "axes",
    "corelsweb.accounts",
    "corelsweb.datasets",
    "corelsweb.runs",
    "corelsweb.shares",
    "corelsweb.ops",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "corelsweb.security.SecurityHeadersMiddleware",
    # Last, as django-axes asks: turns a locked-out sign-in into our lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "corelsweb.urls"
WSGI_APPLICATION = "corelsweb.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [ROOT_DIR / "templates"],
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

if os.environ.get("DATABASE_URL"):
    DATABASES = {"default": database_from_url(os.environ["DATABASE_URL"])}
else:
    DATABASES = {"default": sqlite_database(VAR_DIR / "db.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Argon2id at OWASP's recommended minimum (19 MiB, 2 passes, 1 lane): memory-hard, and about 25 ms of CPU a sign-in
# where PBKDF2's 1,000,000 rounds took 230 ms (30 sign-ins at once queued for seconds on 2 cores). Hashes of the
# other hashers still verify, and are re-hashed with Argon2id at the next sign-in.
PASSWORD_HASHERS = [
    "corelsweb.accounts.hashers.Argon2idHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", VAR_DIR / "static"))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns about a missing directory
STATICFILES_DIRS = [ROOT_DIR / "static"]
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "corelsweb.staticfinders.PlotlyFinder",
]
# Uploaded datasets: a local folder (MEDIA_ROOT) on one machine; with CORELSWEB_S3_BUCKET, an S3-compatible object
# store (AWS S3, MinIO, ...) that workers on every host read. Credentials come the usual boto3 way
# (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the machine's role).
if os.environ.get("CORELSWEB_S3_BUCKET"):
    _default_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": os.environ["CORELSWEB_S3_BUCKET"],
            "endpoint_url": os.environ.get("CORELSWEB_S3_ENDPOINT_URL") or None,
            "region_name": os.environ.get("CORELSWEB_S3_REGION") or None,
            "location": os.environ.get("CORELSWEB_S3_PREFIX", ""),
            "file_overwrite": False,
            "default_acl": "private",
            "querystring_auth": True,
        },
    }
else:
    _default_storage = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
STORAGES = {
    "default": _default_storage,
    "staticfiles": {
        "BACKEND": os.environ.get("STATICFILES_BACKEND", "whitenoise.storage.CompressedManifestStaticFilesStorage")
    },
}
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", VAR_DIR / "media"))
MEDIA_URL = "/media-not-served/"

# Uploads: the whole request is capped by DATA_UPLOAD/FILE_UPLOAD; a dataset by CORELSWEB_MAX_UPLOAD_BYTES.
CORELSWEB_MAX_UPLOAD_BYTES = envint("CORELSWEB_MAX_UPLOAD_BYTES", 256 * 2**20)
CORELSWEB_MAX_ROWS = envint("CORELSWEB_MAX_ROWS", 2_000_000)
CORELSWEB_MAX_COLUMNS = envint("CORELSWEB_MAX_COLUMNS", 5_000)
CORELSWEB_MAX_CELL_CHARS = envint("CORELSWEB_MAX_CELL_CHARS", 10_000)
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 2**20
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 2**20
# Every upload is streamed to a temporary file and refused past CORELSWEB_MAX_UPLOAD_BYTES.
FILE_UPLOAD_HANDLERS = ["corelsweb.datasets.uploads.LimitedUploadHandler"]
# Datasets up to this many cells are binarized in full on their page (boosted cuts, measured loss);
# larger ones are previewed from their stored column histograms.
CORELSWEB_PREVIEW_MAX_CELLS = envint("CORELSWEB_PREVIEW_MAX_CELLS", 2_000_000)

# Runs
CORELSWEB_DEFAULT_TIME_LIMIT = envint("CORELSWEB_DEFAULT_TIME_LIMIT", 120)
CORELSWEB_MAX_TIME_LIMIT = envint("CORELSWEB_MAX_TIME_LIMIT", 3600)
# The most memory one run may ask for: by default three quarters of this host's memory (a worker host's
# setting; the solve is held to its run's limit by the operating system).
_HOST_MB = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2**20 if hasattr(os, "sysconf") else 8192
CORELSWEB_MAX_MEMORY_LIMIT_MB = envint("CORELSWEB_MAX_MEMORY_LIMIT_MB", _HOST_MB * 3 // 4)
CORELSWEB_DEFAULT_MEMORY_LIMIT_MB = min(
    envint("CORELSWEB_DEFAULT_MEMORY_LIMIT_MB", 4096), CORELSWEB_MAX_MEMORY_LIMIT_MB
)
CORELSWEB_PROGRESS_WRITE_SECONDS = float(os.environ.get("CORELSWEB_PROGRESS_WRITE_SECONDS", "0.5"))
# Split one ordered search across workers (corelsweb.runs.splitting): "forbid" (default), "force" (every run whose
# search is the ordered one, with a Redis broker) or "auto" (a long-class run, its estimate hard or its time limit
# long, while another worker process is idle); CORELSWEB_SPLIT_PIECES: how many pieces (0: one per root feature).
CORELSWEB_SPLIT = os.environ.get("CORELSWEB_SPLIT", "forbid")
CORELSWEB_SPLIT_PIECES = envint("CORELSWEB_SPLIT_PIECES", 0)

# Celery (read by corelsweb/celery.py with the CELERY_ namespace)
_broker_dir = VAR_DIR / "broker"
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or os.environ.get("REDIS_URL") or "filesystem://"
if CELERY_BROKER_URL == "filesystem://":
    for _sub in ("queue", "processed", "control"):
        (_broker_dir / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
else:
    # Redelivery of a run whose worker died waits this long; a live long run is
    # protected by the claim (a second delivery of a running run is a no-op).
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": envint("CELERY_VISIBILITY_TIMEOUT", 3600),
        "socket_connect_timeout": 5,
    }
CELERY_TASK_ALWAYS_EAGER = envbool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# No global Celery time limit: a run's task compiles kernels before its search (which must not count), and its
# supervisor enforces the run's own limits; other tasks set their own (corelsweb/runs/tasks.py).
CELERY_WORKER_SEND_TASK_EVENTS = True
# Two queues so that a long search never blocks quick ones: runs are classed by their estimated difficulty and
# time limit (corelsweb.runs.services.queue_for) and served fairly (corelsweb.runs.queueing).
CELERY_TASK_DEFAULT_QUEUE = "short"
CORELSWEB_QUEUES = ("short", "long")
CORELSWEB_LONG_RUN_SECONDS = envint("CORELSWEB_LONG_RUN_SECONDS", 300)
CELERY_WORKER_MAX_MEMORY_PER_CHILD = envint("CELERY_WORKER_MAX_MEMORY_PER_CHILD_KB", 8 * 2**20)
# Liveness: every worker process writes a beat this often (from a thread; the solve runs in a child process),
# and a run whose holder's beat is older than CORELSWEB_STALE_SECONDS is taken over (same host: its pid is asked).
CORELSWEB_HOST_ID = os.environ.get("CORELSWEB_HOST_ID", "")
CORELSWEB_BEAT_SECONDS = float(os.environ.get("CORELSWEB_BEAT_SECONDS", "5"))
CORELSWEB_STALE_SECONDS = envint("CORELSWEB_STALE_SECONDS", 30)
CORELSWEB_MAX_ATTEMPTS = envint("CORELSWEB_MAX_ATTEMPTS", 3)
# A search that has not returned by its time limit plus this grace is stopped from outside and fails (not retried);
# a cancelled one that does not stop within CORELSWEB_CANCEL_GRACE_SECONDS is ended and keeps its best model.
CORELSWEB_HARD_LIMIT_GRACE_SECONDS = envint("CORELSWEB_HARD_LIMIT_GRACE_SECONDS", 60)
CORELSWEB_CANCEL_GRACE_SECONDS = envint("CORELSWEB_CANCEL_GRACE_SECONDS", 10)
# The control loop (`manage.py control`) reconciles this often; exactly one control process acts at a time.
CORELSWEB_RECONCILE_SECONDS = envint("CORELSWEB_RECONCILE_SECONDS", 30)
# Its leader holds a lease row for this long and renews it every third of it; a leader that vanished (even without
# closing its connections) is replaced when its lease expires.
CORELSWEB_LEADER_LEASE_SECONDS = float(os.environ.get("CORELSWEB_LEADER_LEASE_SECONDS", "15"))
# A finished run whose result cannot be stored (the database is away) is spooled to storage; its worker retries the
# database this long more, then leaves the spooled result to the control loop (corelsweb/runs/storing.py).
CORELSWEB_STORE_RETRY_SECONDS = float(os.environ.get("CORELSWEB_STORE_RETRY_SECONDS", "60"))
# Test-only fault injection (corelsweb/runs/faults.py), from the worker's environment only.
CORELSWEB_TEST_FAULT = os.environ.get("CORELSWEB_TEST_FAULT", "")

# Quotas per user
CORELSWEB_MAX_ACTIVE_RUNS = envint("CORELSWEB_MAX_ACTIVE_RUNS", 200)
CORELSWEB_MAX_STORAGE_BYTES = envint("CORELSWEB_MAX_STORAGE_BYTES", 2 * 2**30)

# Caches (rate limits): Redis when there is one, else files in var/ (shared by all web processes).
if os.environ.get("REDIS_URL"):
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["REDIS_URL"],
            "KEY_PREFIX": "corelsweb",
            # A Redis that is down or unreachable answers within seconds: the rate limits then count elsewhere.
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
        }
    }

# Sign-in throttling (django-axes, counters in the database; corelsweb/accounts/throttle.py): failures per
# username at one address, and a far higher limit per address; uploads per user (cache).
CORELSWEB_LOGIN_FAILURES = envint("CORELSWEB_LOGIN_FAILURES", 10)
CORELSWEB_LOGIN_FAILURES_PER_ADDRESS = envint("CORELSWEB_LOGIN_FAILURES_PER_ADDRESS", 100)
CORELSWEB_LOGIN_WINDOW_SECONDS = envint("CORELSWEB_LOGIN_WINDOW_SECONDS", 900)
CORELSWEB_UPLOADS_PER_HOUR = envint("CORELSWEB_UPLOADS_PER_HOUR", 60)
CORELSWEB_TRUST_X_FORWARDED_FOR = envbool("CORELSWEB_TRUST_X_FORWARDED_FOR", False)
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_FAILURE_LIMIT = "corelsweb.accounts.throttle.failure_limit"
AXES_COOLOFF_TIME = "corelsweb.accounts.throttle.cooloff"
AXES_LOCKOUT_CALLABLE = "corelsweb.accounts.throttle.locked_out"
AXES_CLIENT_IP_CALLABLE = "corelsweb.security.client_ip"
AXES_RESET_ON_SUCCESS = True
AXES_DISABLE_ACCESS_LOG = True
AXES_VERBOSE = False

# Security. Behind an https proxy (the container's defaults): secure cookies, HSTS, a redirect of plain http, and
# the proxy's header that says a request came over https (set it only where the proxy strips the client's own).
SESSION_COOKIE_SECURE = envbool("SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", False)
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", False)
_proxy_header = os.environ.get("SECURE_PROXY_SSL_HEADER", "")
SECURE_PROXY_SSL_HEADER = ("HTTP_" + _proxy_header.upper().replace("-", "_"), "https") if _proxy_header else None
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
