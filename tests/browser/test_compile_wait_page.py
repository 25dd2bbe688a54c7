# Check what the run page says while its worker compiles the solver (issue 26, item 1): "Waiting for the solver to
# compile", never "Running" before the search can start; then the result. The worker's compiles are slowed by a
# test-only start-up hook (tests/hooks/slow_compile).
import pytest
from playwright.sync_api import Error as PlaywrightError
from django.contrib.auth import get_user_model

from corelsweb.ops.models import WorkerBeat
from corelsweb.runs.models import Run
from tests.browser.test_pages_truth import sign_up
from tests.conftest import ARTIFACTS, WorkerProcess, purge_queue, require_real_services
from tests.integration.test_compile_wait import SLOW_COMPILE, quick_corels_run

pytestmark = pytest.mark.browser

BADGE = "() => { const b = document.querySelector('#run-status .status'); return b ? b.innerText.trim() : null; }"


def test_the_run_page_never_says_running_before_the_search_starts(
    browser, live_server, transactional_db, media_for_workers
):
    require_real_services()
    purge_queue()
    worker = WorkerProcess("compile-page", extra_env=SLOW_COMPILE).wait_ready()
    try:
        page = browser.new_page(viewport={"width": 1300, "height": 1000})
        sign_up(page, live_server.url, "nina")
        run = quick_corels_run(get_user_model().objects.get(username="nina"), time_limit=5)
        page.goto(live_server.url + run.get_absolute_url())
        samples, notes = [], []
        for _ in range(900):
            try:
                badge = page.evaluate(BADGE)  # first the page, then the database: which can only have moved on
            except PlaywrightError:  # the page reloads itself when the run ends
                page.wait_for_load_state()
                continue
            now = Run.objects.get(pk=run.pk)
            beat = WorkerBeat.objects.filter(name=now.worker).only("ready").first()
            samples.append((badge, now.status, beat is not None and run.algorithm in (beat.ready or [])))
            if badge == "Waiting for the solver to compile":
                notes.append(page.inner_text("#run-status"))
                if len(notes) == 1:
                    page.screenshot(path=str(ARTIFACTS / "run-compiling.png"), full_page=True)
            if not now.is_active and page.query_selector("#result-card"):
                break
            page.wait_for_timeout(150)
        badges = [b for b, _, _ in samples]
        assert "Waiting for the solver to compile" in badges, badges
        said_running = [(b, status, ready) for b, status, ready in samples if b == "Running"]
        assert all(ready for _, _, ready in said_running), said_running  # only once its kernels were ready
        assert Run.objects.get(pk=run.pk).status == Run.Status.OPTIMAL and badges[-1] == "Optimal (proved)"
        assert all("compiled so far" in n and "its search has not started" in n for n in notes), notes
    finally:
        worker.stop()
