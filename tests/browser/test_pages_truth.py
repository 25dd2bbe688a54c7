# Check what the pages show as a new user sees it (issue 21): survival test metrics, a wide tree fitted and folded,
# the live estimate, and that no card on the run, dataset and compare pages overflows (screenshots in test-artifacts).
import pytest

from conftest import shared_dataset
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

OVERFLOWING_CARDS = """() => {
  const out = [];
  document.querySelectorAll('.card').forEach((card, i) => {
    if (card.scrollWidth > card.clientWidth + 1) out.push((card.id || card.querySelector('h2')?.innerText || i) +
      ': ' + card.scrollWidth + ' > ' + card.clientWidth);
  });
  const page = document.documentElement.scrollWidth;
  if (page > window.innerWidth + 1) out.push('page ' + page);
  return out;
}"""


def sign_up(page, url, name):
    page.goto(f"{url}/accounts/signup/")
    page.fill("#id_username", name)
    page.fill("#id_password1", "a-long-pass-phrase-9")
    page.fill("#id_password2", "a-long-pass-phrase-9")
    page.click("button[type=submit]")
    page.wait_for_selector("text=Datasets")


def upload(page, url, filename):
    page.goto(f"{url}/datasets/upload/")
    page.set_input_files("#id_file", str(shared_dataset(filename)) if "/" not in filename else filename)
    page.click("form.card button[type=submit]")
    page.wait_for_selector("#roles-form")
    return page.url


def start_run(page, dataset_url, algorithm_text, fill, holdout=True):
    page.goto(dataset_url)
    page.click(f"text={algorithm_text}")
    for selector, value in fill.items():
        page.fill(selector, value)
    if holdout:
        page.select_option("#id_evaluation", "holdout:0.2")
    page.click("text=Start the run")
    page.wait_for_selector("#result-card", timeout=240_000)


def assert_no_overflow(page, shot):
    page.wait_for_timeout(500)
    page.screenshot(path=str(ARTIFACTS / shot), full_page=True)
    assert page.evaluate(OVERFLOWING_CARDS) == []


def test_survival_and_wide_trees_read_whole_and_no_card_overflows(
    browser, live_server, celery_worker_process, tmp_path
):
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    sign_up(page, live_server.url, "nora")

    survival = upload(page, live_server.url, "veterans-surv.csv")
    assert "events of 137 rows" in page.inner_text("#survival-summary")
    assert page.query_selector("text=CART (greedy baseline)") is None
    assert_no_overflow(page, "issue21-dataset-survival.png")
    start_run(page, survival, "OSST", {"#id_p_max_depth": "2"})
    table = page.inner_text("#metrics-table")
    assert "Harrell" in table and "Uno" in table and "Test" in table
    page.wait_for_selector("#panel-km [data-drawn='1']")
    assert_no_overflow(page, "issue21-run-survival.png")

    bank = upload(page, live_server.url, "bank.csv")
    page.goto(bank + "runs/new/osdt/")
    before = page.inner_text("#estimate")
    page.fill("#id_p_regularization", "0.0005")
    for _ in range(50):  # the box follows the form (the page's CSP forbids wait_for_function's eval)
        if page.inner_text("#estimate") != before:
            break
        page.wait_for_timeout(200)
    assert page.inner_text("#estimate") != before and "λ" not in before.split("To make it easier")[0]
    page.screenshot(path=str(ARTIFACTS / "issue21-estimate-live.png"), full_page=True)
    start_run(page, bank, "CART (greedy baseline)", {"#id_p_max_depth": "6"})
    page.wait_for_selector("#model-figure[data-drawn='1']")
    box = page.eval_on_selector("#model-figure .main-svg", "e => e.getBoundingClientRect().width")
    card = page.eval_on_selector("#model-figure", "e => e.clientWidth")
    assert box <= card + 1  # fitted to the card, root in view
    assert "leaves below" in page.inner_text("#model-figure")
    page.click("#tree-rules summary")
    assert "leaf 1: if " in page.inner_text("#tree-rules")
    assert_no_overflow(page, "issue21-run-wide-tree.png")
    start_run(page, bank, "CART (greedy baseline)", {"#id_p_max_depth": "2"})

    # STreeD's F1 front: each tree of the menu brings its own width, so labels never overlap.
    tic = upload(page, live_server.url, "tic-tac-toe.csv")
    page.goto(tic + "runs/new/streed/")
    page.select_option("#id_p_objective", "f1")
    page.fill("#id_p_max_depth", "3")
    page.click("text=Start the run")
    page.wait_for_selector("#panel-streed-front-trees [data-drawn='1']", timeout=240_000)
    assert_no_overflow(page, "issue21-run-streed-f1.png")

    wide = tmp_path / "wide.csv"
    header = ",".join(f"feature_number_{j}" for j in range(2000)) + ",label\n"
    rows = "".join(",".join(str((i * j) % 7) for j in range(2000)) + f",{i % 2}\n" for i in range(40))
    wide.write_text(header + rows)
    upload(page, live_server.url, str(wide))
    assert_no_overflow(page, "issue21-dataset-2000-columns.png")
    assert page.evaluate("document.documentElement.scrollHeight") < 5000

    page.goto(bank)
    page.click("text=Compare runs, λ paths…")
    for box in page.query_selector_all("input[name=runs]")[:2]:
        box.check()
    page.click("#compare-button")
    page.wait_for_selector(".compare-models [data-drawn='1'] >> nth=1")
    assert "misclassification rate + λ × leaves" in page.inner_text(".compare-table")
    assert_no_overflow(page, "issue21-compare.png")


def test_fairness_overfitting_test_files_names_and_the_staff_view(
    browser, live_server, celery_worker_process, tmp_path
):
    from django.contrib.auth import get_user_model

    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    sign_up(page, live_server.url, "olga")
    upload(page, live_server.url, "veterans-surv.csv")
    compas = upload(page, live_server.url, "compas-gosdt.csv")
    page.select_option("#id_group", "sex=female")
    page.click("#roles-form button[type=submit]")
    page.wait_for_selector("text=Saved the column roles")

    page.click("text=CART (greedy baseline)")
    options = page.eval_on_selector_all("#id_evaluation option", "os => os.map(o => o.textContent)")
    assert not any("veterans" in o for o in options)  # a survival table cannot test a classifier
    start_run(
        page,
        compas,
        "CART (greedy baseline)",
        {"#id_p_max_depth": "3", "#id_run_name": "depth-3 baseline", "#id_run_note": "fairness check before GOSDT"},
    )
    fairness = page.inner_text("#fairness")
    assert "sex=female" in fairness and "Training data: discrimination" in fairness and "Test data" in fairness
    assert "depth-3 baseline" in page.inner_text("main") and page.query_selector("#searched-features")
    assert_no_overflow(page, "issue21-run-fairness.png")

    rng_rows = "".join(f"{(i * 37) % 101 / 101:.3f},{(i * 53) % 97 / 97:.3f},{(i * 7919) % 2}\n" for i in range(300))
    noise = tmp_path / "noise.csv"
    noise.write_text("u,v,label\n" + rng_rows)
    noisy = upload(page, live_server.url, str(noise))
    start_run(page, noisy, "CART (greedy baseline)", {"#id_p_max_depth": "8"})
    assert "overfitting" in page.inner_text("#overfitting-warning")
    assert_no_overflow(page, "issue21-run-overfitting.png")

    page.goto(f"{live_server.url}/")
    assert "depth-3 baseline" in page.inner_text("main") and "survival: " in page.inner_text("main")
    page.screenshot(path=str(ARTIFACTS / "issue21-home.png"), full_page=True)

    get_user_model().objects.create_user("sam", password="a-long-pass-phrase-9", is_staff=True)
    staff = browser.new_context().new_page()
    staff.set_viewport_size({"width": 1300, "height": 1000})
    staff.goto(f"{live_server.url}/accounts/login/")
    staff.fill("#id_username", "sam")
    staff.fill("#id_password", "a-long-pass-phrase-9")
    staff.click("button[type=submit]")
    staff.goto(f"{live_server.url}/ops/queue/")
    staff.screenshot(path=str(ARTIFACTS / "issue21-ops-queue.png"), full_page=True)
    from corelsweb.runs.models import Run

    run = Run.objects.filter(name="depth-3 baseline").get()
    staff.goto(f"{live_server.url}/ops/runs/{run.pk}/")
    assert "Staff view" in staff.inner_text("#staff-view") and staff.query_selector("#share-button") is None
    staff.wait_for_selector("#model-figure[data-drawn='1']")
    staff.screenshot(path=str(ARTIFACTS / "issue21-staff-run.png"), full_page=True)
