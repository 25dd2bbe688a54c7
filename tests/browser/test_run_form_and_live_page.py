# Found by trying the app as a new user (bank.csv, STreeD F1 on every threshold): the run form, the live page.
# The live bounds chart of a running search follows its points (found by trying the app: the server drew the
# axes for the points it had when the page was rendered — none, for a run just started — and the page's
# updates kept that range, so the chart stayed empty at 0–0.001 s while the status line counted seconds).
import pytest

from tests.browser.test_pages_truth import sign_up, upload
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

CHART = """() => {
  const div = document.getElementById('live-trace');
  if (!div || !div.layout || !div.data) return null;
  const xs = [].concat(...div.data.map(s => Array.from(s.x || [])));
  return {waiting: div.classList.contains('waiting'), range: div.layout.xaxis.range, xs: xs,
          running: !!document.querySelector('#run-status[data-active="1"]')};
}"""


def test_the_live_chart_of_a_running_search_shows_its_points(browser, live_server, celery_worker_process):
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    sign_up(page, live_server.url, "lena")
    bank = upload(page, live_server.url, "bank.csv")
    # F1 on every threshold of bank by the 0/1 search (its fronts; Dinkelbach iterations on the ordered search
    # would finish): far from finishing in 8 s, so the page polls a running search.
    page.goto(bank + "runs/new/streed/")
    page.select_option("#id_p_objective", "f1")
    page.select_option("#id_p_threshold_search", "binary")
    page.fill("#id_p_max_depth", "3")
    page.fill("#id_time_limit", "8")
    page.click("text=Start the run")
    seen = None
    for _ in range(600):
        chart = page.evaluate(CHART)
        if chart and chart["running"] and not chart["waiting"] and chart["xs"] and max(chart["xs"]) > 1:
            seen = chart
            break
        page.wait_for_timeout(250)
    assert seen is not None, "the running search's chart never showed points past its first second"
    page.wait_for_timeout(500)
    page.screenshot(path=str(ARTIFACTS / "live-trace-running.png"), full_page=True)
    chart = page.eval_on_selector("#live-trace .main-svg", "e => e.getBoundingClientRect().width")
    card = page.eval_on_selector("#live", "e => e.clientWidth")
    assert chart > 0.8 * card, f"the chart is {chart:.0f} px wide in a card of {card} px"
    low, high = seen["range"]
    assert low == 0 and high >= max(seen["xs"]), f"x axis {seen['range']} hides points up to {max(seen['xs'])} s"

    # Once it ends, the page reloads with the result. The "Features searched" table of a run on every threshold:
    # the threshold lists are long, and they squeezed the other columns to a letter or two a line.
    page.wait_for_selector("#result-card", timeout=120_000)
    page.screenshot(path=str(ARTIFACTS / "live-trace-finished.png"), full_page=True)
    assert page.evaluate(WRAPPED) == []


WRAPPED = """() => Array.from(document.querySelectorAll(
    '.searched-table th, .searched-table td:nth-child(1), .searched-table td:nth-child(2)')).filter(e => {
  const r = document.createRange(); r.selectNodeContents(e); return r.getClientRects().length > 1;
}).map(e => e.innerText)"""


def test_the_run_form_shows_a_parameter_only_where_it_applies(browser, live_server):
    # Found by trying the app: STreeD's form showed fairness δ, costs, teacher and treatment fields for accuracy.
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    sign_up(page, live_server.url, "omar")
    bank = upload(page, live_server.url, "bank.csv")
    page.goto(bank + "runs/new/streed/")
    shown = lambda selector: page.is_visible(selector)  # noqa: E731
    assert not shown("#id_p_delta") and not shown("#id_p_misclassification_costs") and not shown("#id_p_teacher")
    assert shown("#id_p_max_depth")
    page.select_option("#id_p_objective", "demographic_parity")
    assert shown("#id_p_delta") and not shown("#id_p_teacher")
    page.select_option("#id_p_objective", "cost_sensitive")
    assert shown("#id_p_misclassification_costs") and not shown("#id_p_delta")
    page.goto(bank + "runs/new/gosdt/")
    assert not shown("#id_p_pauc_theta")
    page.select_option("#id_p_objective", "pauc")
    assert shown("#id_p_pauc_theta")
    # The regularization path's form renders the same parameter groups and hides them the same way.
    page.goto(bank + "paths/new/gosdt/")
    assert not shown("#id_p_pauc_theta")
    page.select_option("#id_p_objective", "pauc")
    assert shown("#id_p_pauc_theta")
