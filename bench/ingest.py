"""Ingest benchmark: a 200 MB, 1M-row CSV uploaded to a real web process, and read by the solver side.

Measures, each in a fresh process:

- ``upload``: a real gunicorn worker (one sync worker) receives the file over
  HTTP (streamed by the client, Content-Length set), stores it and profiles it;
  peak resident memory of that worker (``VmHWM``) before and after;
- ``profile``: ``solver.data.profile_file`` alone (the web side's pass);
- ``read``: ``solver.data.read_table`` (the whole typed table, worker side).

    .venv/bin/python -m bench.ingest [--rows 1000000] [--port 8801]
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.harness import markdown_table, run_isolated, write_results

ROOT = Path(__file__).resolve().parent.parent
BOUNDARY = "----corelswebbenchboundary"


def make_csv(path, rows, seed=0, block=100_000):
    """Write a CSV of ``rows`` rows and about 200 bytes a row: numbers, categories, missing values, a label."""
    rng = np.random.default_rng(seed)
    names = ["id"] + [f"x{j}" for j in range(17)] + ["city", "grade", "channel", "label"]
    with open(path, "w") as f:
        f.write(",".join(names) + "\n")
        for start in range(0, rows, block):
            n = min(block, rows - start)
            numbers = rng.normal(100, 30, size=(n, 17)).round(6)
            cities = rng.integers(0, 400, n)
            grades = rng.choice(np.array(["A", "B", "C", "D", "NA"]), n)
            channel = rng.choice(np.array(["web", "phone", "shop"]), n)
            label = (numbers[:, 0] + rng.normal(0, 30, n) > 100).astype(int)
            lines = []
            for i in range(n):
                cells = [str(start + i + 1)] + [f"{v:.6f}" for v in numbers[i]]
                cells += [f"city_{cities[i]:03d}", grades[i], channel[i], str(label[i])]
                lines.append(",".join(cells))
            f.write("\n".join(lines) + "\n")


def profile_job(path):
    from solver.data import profile_file

    t0 = time.perf_counter()
    with open(path, "rb") as f:
        profile = profile_file(f)
    return {"seconds": time.perf_counter() - t0, "rows": profile.n_rows, "columns": len(profile.columns)}


def read_job(path):
    from solver.data import read_table

    t0 = time.perf_counter()
    with open(path, "rb") as f:
        table = read_table(f)
    return {"seconds": time.perf_counter() - t0, "rows": table.n_rows}


def _request(port, method, url, body=None, headers=None, cookies=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=900)
    headers = dict(headers or {})
    if cookies:
        headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
    conn.request(method, url, body=body, headers=headers)
    response = conn.getresponse()
    data = response.read()
    for header in response.msg.get_all("Set-Cookie") or []:
        name, value = header.split(";", 1)[0].split("=", 1)
        cookies[name] = value
    return response.status, response.getheader("Location"), data.decode(errors="replace")


def _csrf(page):
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)


def _upload_streamed(port, path, cookies, token):
    head = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="csrfmiddlewaretoken"\r\n\r\n{token}\r\n'
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\n'
        "Content-Type: text/csv\r\n\r\n"
    ).encode()
    tail = f"\r\n--{BOUNDARY}--\r\n".encode()
    length = len(head) + os.path.getsize(path) + len(tail)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=900)
    conn.putrequest("POST", "/datasets/upload/")
    conn.putheader("Content-Type", f"multipart/form-data; boundary={BOUNDARY}")
    conn.putheader("Content-Length", str(length))
    conn.putheader("Cookie", "; ".join(f"{k}={v}" for k, v in cookies.items()))
    conn.putheader("Referer", f"http://127.0.0.1:{port}/datasets/upload/")
    conn.endheaders()
    conn.send(head)
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            conn.send(chunk)
    conn.send(tail)
    response = conn.getresponse()
    response.read()
    return response.status, response.getheader("Location")


def _peak_rss(pid):
    status = Path(f"/proc/{pid}/status").read_text()
    return {k: int(re.search(rf"{k}:\s+(\d+) kB", status).group(1)) * 1024 for k in ("VmHWM", "VmRSS")}


def upload_benchmark(path, port):
    """Upload ``path`` to a fresh gunicorn worker; return its memory before and after, and the time."""
    import psutil

    var = tempfile.mkdtemp(prefix="corelsweb-bench-")
    env = dict(
        os.environ,
        CORELSWEB_VAR_DIR=var,
        SECURE_COOKIES="0",
        DATABASE_URL="",
        REDIS_URL="",
        CELERY_BROKER_URL="",
        STATICFILES_BACKEND="django.contrib.staticfiles.storage.StaticFilesStorage",
    )
    env.pop("DATABASE_URL")
    for command in (["migrate", "--verbosity", "0"], ["bootstrap"]):
        subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, check=True, capture_output=True)
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "corelsweb.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "1",
            "--timeout",
            "900",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        cookies = {}
        for _ in range(100):
            try:
                status, _, page = _request(port, "GET", "/accounts/login/", cookies=cookies)
                break
            except OSError:
                time.sleep(0.2)
        body = f"username=demo&password=demo-corelsweb&csrfmiddlewaretoken={_csrf(page)}"
        _request(
            port,
            "POST",
            "/accounts/login/",
            body,
            {
                "Content-Type": "application/x-www-form-urlencoded",
                "Referer": f"http://127.0.0.1:{port}/accounts/login/",
            },
            cookies,
        )
        _, _, page = _request(port, "GET", "/datasets/upload/", cookies=cookies)
        worker = psutil.Process(server.pid).children()[0].pid
        before = _peak_rss(worker)
        t0 = time.perf_counter()
        status, location = _upload_streamed(port, path, cookies, _csrf(page))
        seconds = time.perf_counter() - t0
        after = _peak_rss(worker)
        t0 = time.perf_counter()
        _, _, page = _request(port, "GET", location or "/", cookies=cookies)
        page_seconds = time.perf_counter() - t0
        rows = re.search(r"([\d,]+) rows · (\d+) columns", page)
        return {
            "status": status,
            "seconds": seconds,
            "peak_before_bytes": before["VmHWM"],
            "peak_after_bytes": after["VmHWM"],
            "peak_after_page_bytes": _peak_rss(worker)["VmHWM"],
            "page_seconds": page_seconds,
            "rows_shown": rows.group(0) if rows else None,
        }
    finally:
        server.terminate()
        server.wait(30)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--port", type=int, default=8801)
    parser.add_argument("--path", default=os.path.join(tempfile.gettempdir(), "corelsweb-ingest.csv"))
    args = parser.parse_args()
    if not os.path.exists(args.path):
        make_csv(args.path, args.rows)
    size = os.path.getsize(args.path)
    small = args.path + ".tenth.csv"
    if not os.path.exists(small):
        make_csv(small, args.rows // 10)
    load = os.getloadavg()[0]
    rows = [
        {
            "job": "profile_file, a tenth of the rows",
            "file_bytes": os.path.getsize(small),
            "load": load,
            **run_isolated("bench.ingest:profile_job", path=small),
        },
        {"job": "upload (gunicorn worker)", "file_bytes": size, "load": load, **upload_benchmark(args.path, args.port)},
        {
            "job": "profile_file",
            "file_bytes": size,
            "load": load,
            **run_isolated("bench.ingest:profile_job", path=args.path),
        },
        {
            "job": "read_table",
            "file_bytes": size,
            "load": load,
            **run_isolated("bench.ingest:read_job", path=args.path),
        },
    ]
    for row in rows:
        row["peak_mb"] = (row.get("peak_after_bytes") or row.get("peak_rss_bytes") or 0) / 2**20
    write_results("ingest", rows)
    print(
        markdown_table(
            rows,
            [
                ("job", "job", "{}"),
                ("file_bytes", "file bytes", "{:,}"),
                ("seconds", "seconds", "{:.1f}"),
                ("peak_mb", "peak RSS (MB)", "{:.0f}"),
                ("load", "load", "{:.2f}"),
            ],
        )
    )


if __name__ == "__main__":
    main()
