# Check under concurrent load: 20 clients submit 100 runs and poll pages against two worker processes; each ends once.
import pytest

from bench.load import check_exactly_once, make_accounts, run_load
from tests.conftest import WorkerProcess, purge_queue, require_real_services

pytestmark = [pytest.mark.load, pytest.mark.integration]


def test_concurrent_clients_and_two_workers_finish_every_run_exactly_once(
    live_server, transactional_db, media_for_workers, settings
):
    require_real_services()
    purge_queue()
    settings.SECURE_COOKIES = False
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False
    workers = [WorkerProcess(f"load{k}") for k in range(2)]
    try:
        for w in workers:
            w.wait_ready()
        accounts = make_accounts(20)
        summary = run_load(live_server.url, accounts, runs_per_client=5, poll=0.3, time_budget=300)
        assert not summary["errors"], summary["errors"]
        assert summary["runs_submitted"] == 100
        assert summary["statuses"] == {"heuristic": 100}
        assert check_exactly_once(summary["run_pks"]) == []
        print(
            f"p50 {summary['latency_p50']:.3f}s p95 {summary['latency_p95']:.3f}s over {summary['requests']} requests"
        )
    finally:
        for w in workers:
            w.stop()
