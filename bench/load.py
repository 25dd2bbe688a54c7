"""Load: many clients submit runs and poll pages while workers solve them.

    .venv/bin/python -m bench.load [--clients 50] [--runs-per-client 10] [--workers 2]

Starts its own stack against the local PostgreSQL and Redis (database
``corelsweb_load``, Redis database 9; ``--database``, ``--redis-db``): gunicorn and ``--workers`` Celery worker
processes; creates one user and dataset per client; then every client signs in,
submits its runs one after another and polls each run's progress endpoint and
page until it ends. Checks that every run ends in a final state exactly once
(one claim each) and reports page latency percentiles. Bounded in count and
time, and it talks to 127.0.0.1 only.
"""

import argparse
import http.cookiejar
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CSV = b"a,b,c,label\n" + b"".join(
    f"{i % 2},{(i // 2) % 2},{(i * 7) % 11},{int((i % 3 == 0) ^ (i % 2 == 1))}\n".encode() for i in range(120)
)
FINAL = {"optimal", "heuristic", "time_limit", "node_limit", "memory_limit", "cancelled", "failed"}


def page_kind(path):
    """Group a path for the latency report: sign-in, run form, progress poll, run page."""
    if path.startswith("/accounts/login/"):
        return "sign_in"
    if "/runs/new/" in path:
        return "run_form"
    if path.endswith("progress.json"):
        return "progress"
    return "run_page"


class Client:
    """A browser-like HTTP client: cookies, CSRF tokens, and timing of every page."""

    def __init__(self, base):
        if urllib.parse.urlparse(base).hostname not in ("127.0.0.1", "localhost"):
            raise SystemExit("the load script only talks to a local server")
        self.base = base.rstrip("/")
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.latencies = []

    def csrf(self):
        return next((c.value for c in self.jar if c.name == "csrftoken"), "")

    def request(self, path, data=None):
        body = None if data is None else urllib.parse.urlencode({**data, "csrfmiddlewaretoken": self.csrf()}).encode()
        req = urllib.request.Request(self.base + path, data=body, headers={"Referer": self.base + path})
        t0 = time.perf_counter()
        with self.opener.open(req, timeout=60) as resp:
            text = resp.read().decode()
            url = resp.geturl()
        self.latencies.append((page_kind(path), time.perf_counter() - t0))
        return url, text

    def login(self, username, password):
        self.request("/accounts/login/")
        url, _ = self.request("/accounts/login/", {"username": username, "password": password})
        if "/accounts/login/" in url:
            raise RuntimeError(f"could not sign in as {username}")

    def submit(self, dataset_pk, depth):
        path = f"/datasets/{dataset_pk}/runs/new/cart/"
        self.request(path)
        url, _ = self.request(
            path,
            {
                "time_limit": 60,
                "memory_limit_mb": 512,
                "p_max_depth": depth,
                "p_min_samples_leaf": 1,
                "p_criterion": "gini",
                "p_regularization": 0.0,
            },
        )
        match = re.search(r"/runs/(\d+)/$", url)
        if not match:
            raise RuntimeError(f"submitting a run did not lead to its page: {url}")
        return int(match.group(1))

    def wait(self, run_pk, poll, deadline):
        while time.monotonic() < deadline:
            _, text = self.request(f"/runs/{run_pk}/progress.json")
            data = json.loads(text)
            if not data.get("unchanged") and data["status"] in FINAL:
                self.request(f"/runs/{run_pk}/")
                return data["status"]
            time.sleep(poll)
        return "timeout"


def client_session(base, username, password, dataset_pk, runs, poll, deadline, out):
    client = Client(base)
    statuses, errors = [], []
    try:
        client.login(username, password)
        for k in range(runs):
            pk = client.submit(dataset_pk, 2 + k % 3)
            statuses.append((pk, client.wait(pk, poll, deadline)))
    except Exception as e:  # reported in the summary, never swallowed
        errors.append(f"{username}: {type(e).__name__}: {e}")
    out.append({"statuses": statuses, "latencies": client.latencies, "errors": errors})


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))] if values else None


def run_load(base, accounts, runs_per_client, poll=0.5, time_budget=900):
    """Drive the clients; return a summary dict (counts, statuses, latency percentiles)."""
    deadline = time.monotonic() + time_budget
    out, threads = [], []
    t0 = time.perf_counter()
    for username, password, dataset_pk in accounts:
        t = threading.Thread(
            target=client_session, args=(base, username, password, dataset_pk, runs_per_client, poll, deadline, out)
        )
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    timed = [x for o in out for x in o["latencies"]]
    latencies = [t for _, t in timed]
    by_kind = {kind: [t for k, t in timed if k == kind] for kind in sorted({k for k, _ in timed})}
    statuses = [s for o in out for s in o["statuses"]]
    return {
        "clients": len(accounts),
        "runs_submitted": len(statuses),
        "wall_seconds": wall,
        "statuses": {s: sum(1 for _, x in statuses if x == s) for s in {x for _, x in statuses}},
        "run_pks": [pk for pk, _ in statuses],
        "requests": len(latencies),
        "latency_p50": percentile(latencies, 0.5),
        "latency_p95": percentile(latencies, 0.95),
        "latency_p99": percentile(latencies, 0.99),
        "latency_mean": statistics.fmean(latencies) if latencies else None,
        "latency_by_page": {
            kind: {"requests": len(ts), "p50": percentile(ts, 0.5), "p95": percentile(ts, 0.95), "max": max(ts)}
            for kind, ts in by_kind.items()
        },
        "errors": [e for o in out for e in o["errors"]],
    }


def check_exactly_once(run_pks):
    """Return problems: runs not final, claimed more than once, or stored twice (from the database)."""
    from corelsweb.runs.models import Run

    problems = []
    runs = {r.pk: r for r in Run.objects.filter(pk__in=run_pks)}
    if len(runs) != len(set(run_pks)) or len(run_pks) != len(set(run_pks)):
        problems.append("some submitted runs are missing or duplicated")
    for pk, run in runs.items():
        if run.status not in FINAL:
            problems.append(f"run {pk} is still {run.status}")
        elif run.attempts != 1:
            problems.append(f"run {pk} was claimed {run.attempts} times")
    return problems


def wait_ready(url, timeout=120):
    """Wait until the web server answers, so that its start-up is not counted as page latency."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            time.sleep(0.5)
    raise SystemExit(f"the web server did not answer at {url} within {timeout} s")


def make_accounts(n, password="load-password-123"):
    from django.contrib.auth import get_user_model

    from corelsweb.datasets.services import create_dataset

    accounts = []
    for i in range(n):
        user, _ = get_user_model().objects.get_or_create(username=f"load{i:03d}")
        user.set_password(password)
        user.save()
        dataset = create_dataset(user, "load", CSV, "load.csv")
        accounts.append((user.username, password, dataset.pk))
    return accounts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--runs-per-client", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--port", type=int, default=8799)
    parser.add_argument("--time-budget", type=float, default=1200)
    parser.add_argument("--database", default="corelsweb_load", help="PostgreSQL database (created, then emptied)")
    parser.add_argument("--redis-db", type=int, default=9, help="Redis database number (flushed)")
    args = parser.parse_args()
    if args.clients * args.runs_per_client > 2000:
        raise SystemExit("bounded: at most 2000 runs")
    env = dict(
        os.environ,
        DATABASE_URL=f"postgres://postgres@127.0.0.1:5432/{args.database}",
        REDIS_URL=f"redis://127.0.0.1:6379/{args.redis_db}",
        CELERY_BROKER_URL=f"redis://127.0.0.1:6379/{args.redis_db}",
        CORELSWEB_VAR_DIR=str(ROOT / "var" / "load"),
        SECURE_COOKIES="0",
        CORELSWEB_MAX_ACTIVE_RUNS="10000",
        CORELSWEB_UPLOADS_PER_HOUR="100000",
        DJANGO_SETTINGS_MODULE="corelsweb.settings",
    )
    os.environ.update(env)
    subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", args.database], capture_output=True)
    subprocess.run(["redis-cli", "-n", str(args.redis_db), "flushdb"], check=True, capture_output=True)
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    subprocess.run([python, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    import django

    django.setup()
    from corelsweb.runs.models import Run

    Run.objects.all().delete()
    accounts = make_accounts(args.clients)
    logs = ROOT / "var" / "load"
    procs = [
        subprocess.Popen(
            [
                python,
                "-m",
                "gunicorn",
                "corelsweb.wsgi",
                "-b",
                f"127.0.0.1:{args.port}",
                "--workers",
                "4",
                "--threads",
                "8",
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=env,
            stdout=(logs / "web.log").open("w"),
            stderr=subprocess.STDOUT,
        )
    ]
    for k in range(args.workers):
        procs.append(
            subprocess.Popen(
                [
                    python,
                    "-m",
                    "celery",
                    "-A",
                    "corelsweb",
                    "worker",
                    "-Q",
                    "short,long",
                    "--concurrency=1",
                    "-n",
                    f"load{k}@%h",
                    "--loglevel=WARNING",
                ],
                cwd=ROOT,
                env=dict(env, CORELSWEB_WARM_SOLVERS="0"),
                stdout=(logs / f"worker{k}.log").open("w"),
                stderr=subprocess.STDOUT,
            )
        )
    try:
        wait_ready(f"http://127.0.0.1:{args.port}/accounts/login/")
        summary = run_load(
            f"http://127.0.0.1:{args.port}", accounts, args.runs_per_client, time_budget=args.time_budget
        )
        summary["problems"] = check_exactly_once(summary.pop("run_pks"))
        summary["workers"] = args.workers
        summary["load_average"] = os.getloadavg()
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=30)
    from bench.harness import write_results

    write_results("load", [summary])
    print(json.dumps(summary, indent=1))
    return 0 if not summary["problems"] and not summary["errors"] else 1


if __name__ == "__main__":
    sys.exit(main())
