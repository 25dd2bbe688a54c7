# Check the production defaults (issue 27, item 7): the container's settings pass `manage.py check --deploy`
# with no warning (Secure cookies, HSTS, SSL redirect), and the env-driven settings behave behind an https proxy.
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.test import Client

from conftest import make_user

pytestmark = [pytest.mark.security]
ROOT = Path(__file__).resolve().parents[2]


def compose_environment():
    """Return the web service's environment from compose.yaml, each ``${VAR:-default}`` at its default."""
    app = yaml.safe_load((ROOT / "compose.yaml").read_text())["x-app"]["environment"]
    secret = secrets.token_urlsafe(50)

    def resolve(value):
        match = re.fullmatch(r"\$\{(\w+)(:?[-?])([^}]*)\}", str(value))
        if not match:
            return str(value)
        return secret if match.group(2).endswith("?") else match.group(3)

    return {name: resolve(value) for name, value in app.items()}


def dockerfile_environment():
    """Return the ENV of the Dockerfile's last stage (the image the services run)."""
    stage = (ROOT / "Dockerfile").read_text().split("\nFROM ")[-1]
    env = {}
    for block in re.findall(r"^ENV ((?:.*\\\n)*.*)$", stage, flags=re.M):
        env.update(dict(pair.split("=", 1) for pair in block.replace("\\\n", " ").split()))
    return env


def check_deploy(env, tmp_path):
    env = {
        **env,
        "PATH": os.environ["PATH"],
        "CORELSWEB_ROOT": str(ROOT),  # the image's copy of templates/ and static/
        "CORELSWEB_VAR_DIR": str(tmp_path / "var"),
        "STATIC_ROOT": str(tmp_path / "static"),
        "DJANGO_SETTINGS_MODULE": "corelsweb.settings",
    }
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )


def test_the_compose_stack_passes_the_deploy_check(tmp_path):
    env = {**dockerfile_environment(), **compose_environment()}
    env["PATH"] = os.environ["PATH"]
    checked = check_deploy(env, tmp_path)
    assert checked.returncode == 0, checked.stderr + checked.stdout
    assert env["SECURE_COOKIES"] == "1"


def test_the_image_alone_passes_the_deploy_check(tmp_path):
    env = {**dockerfile_environment(), "SECRET_KEY": secrets.token_urlsafe(50)}
    checked = check_deploy(env, tmp_path)
    assert checked.returncode == 0, checked.stderr + checked.stdout


def test_behind_an_https_proxy_plain_http_is_redirected_and_https_gets_hsts_and_secure_cookies(db, settings):
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_HSTS_SECONDS = 31536000
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    make_user("alice")
    plain = Client().get("/accounts/login/")
    assert plain.status_code == 301 and plain["Location"].startswith("https://")
    client = Client(HTTP_X_FORWARDED_PROTO="https")
    page = client.get("/accounts/login/")
    assert page.status_code == 200 and page["Strict-Transport-Security"].startswith("max-age=31536000")
    assert page.cookies["csrftoken"]["secure"]
    signed_in = client.post("/accounts/login/", {"username": "alice", "password": "alice-password-123"})
    assert signed_in.status_code == 302 and signed_in.cookies["sessionid"]["secure"]


def test_the_proxy_header_setting_names_the_header(tmp_path):
    env = {**os.environ, "SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto", "CORELSWEB_VAR_DIR": str(tmp_path)}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    out = subprocess.run(
        [sys.executable, "-c", "from corelsweb import settings; print(settings.SECURE_PROXY_SSL_HEADER)"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.stdout.strip() == "('HTTP_X_FORWARDED_PROTO', 'https')", out.stderr


def test_passwords_are_hashed_with_argon2id_and_older_hashes_are_upgraded_at_sign_in(db):
    from django.contrib.auth.hashers import make_password

    alice = make_user("alice")
    assert alice.password.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$")
    alice.password = make_password("alice-password-123", hasher="pbkdf2_sha256")
    alice.save()
    signed_in = Client().post("/accounts/login/", {"username": "alice", "password": "alice-password-123"})
    assert signed_in.status_code == 302
    alice.refresh_from_db()
    assert alice.password.startswith("argon2$argon2id$")
