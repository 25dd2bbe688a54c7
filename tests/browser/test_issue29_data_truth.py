# Check issue 29 as a new user sees it in the browser: an R-coded survival table (1 = censored, 2 = event) is refused
# on its dataset page with the remedy, and read once the event value is set; the OSST run then works.
import pandas as pd
import pytest

from conftest import shared_dataset
from tests.browser.test_pages_truth import sign_up, start_run, upload
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser


def test_an_r_coded_survival_table_is_mapped_on_its_dataset_page(browser, live_server, celery_worker_process, tmp_path):
    ARTIFACTS.mkdir(exist_ok=True)
    frame = pd.read_csv(shared_dataset("veterans-surv.csv"))
    frame["event"] = frame["event"] + 1
    path = tmp_path / "veterans-r.csv"
    frame.to_csv(path, index=False)
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    sign_up(page, live_server.url, "rosa")
    dataset = upload(page, live_server.url, str(path))
    summary = page.inner_text("#survival-summary")
    assert "holds 1, 2" in summary and "event value on the dataset page" in summary
    page.screenshot(path=str(ARTIFACTS / "issue29-event-value-refused.png"), full_page=True)
    page.fill("#id_event_value", "2")
    page.click("#roles-form button[type=submit]")
    page.wait_for_selector("text=Saved the column roles.")
    assert "128 events of 137 rows" in page.inner_text("#survival-summary")
    assert "event = 2" in page.inner_text("#survival-summary")
    page.screenshot(path=str(ARTIFACTS / "issue29-event-value-set.png"), full_page=True)
    start_run(page, dataset, "OSST", {"#id_p_max_depth": "2"})
    assert "Harrell" in page.inner_text("#metrics-table")
    # Issue 29.3: λ left empty is chosen from the data (1 % of ℓ₀ on the 110 training rows), and the tree splits.
    assert "chosen from the data: 1% of ℓ₀" in page.inner_text("#from-data-regularization")
    assert "(from the data)" in page.inner_text("body")
    assert page.query_selector("#single-leaf") is None
    page.screenshot(path=str(ARTIFACTS / "issue29-event-value-run.png"), full_page=True)


def loans_risky(tmp_path):
    """Write an imbalanced table made from loans.csv: 4.05 % of the loans are of grade E, F or G ('risky')."""
    frame = pd.read_csv(shared_dataset("loans.csv"))
    columns = ["annual_income", "debt_to_income", "total_credit_limit", "loan_amount", "term", "inquiries_last_12m"]
    table = frame[columns].copy()
    table["risky"] = frame["grade"].isin(["E", "F", "G"]).map({True: "yes", False: "no"})
    path = tmp_path / "loans-risky.csv"
    table.to_csv(path, index=False)
    return path


def test_an_imbalanced_label_is_told_and_offered_the_objectives_that_fit(
    browser, live_server, celery_worker_process, tmp_path
):
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    sign_up(page, live_server.url, "ines")
    dataset = upload(page, live_server.url, str(loans_risky(tmp_path)))
    page.goto(dataset + "runs/new/gosdt/")
    assert "4.0% of the rows are 'yes'" in page.inner_text("#balance-note")
    assert page.input_value("#id_p_objective") == "balanced_accuracy"
    page.screenshot(path=str(ARTIFACTS / "issue29-imbalanced-form.png"), full_page=True)
    # CORELS on its defaults: the proved optimum predicts 'no' for every row, and the page says so.
    page.goto(dataset + "runs/new/corels/")
    page.select_option("#id_evaluation", "holdout:0.2")
    page.click("text=Start the run")
    page.wait_for_selector("#result-card", timeout=240_000)
    note = page.inner_text("#constant-model")
    assert "predicts 'no' for every row: the majority class (96.0% of the training rows)" in note
    assert "GOSDT with balanced accuracy" in note and "STreeD with F1" in note
    page.screenshot(path=str(ARTIFACTS / "issue29-majority-class-note.png"), full_page=True)
    # Its link opens STreeD's form on F1 (its default here too); the run splits the raw numeric columns.
    page.click("#constant-model >> text=STreeD with F1")
    assert page.input_value("#id_p_objective") == "f1"
    page.fill("#id_p_max_depth", "2")
    page.select_option("#id_evaluation", "holdout:0.2")
    page.click("text=Start the run")
    page.wait_for_selector("#result-card", timeout=240_000)
    assert page.query_selector("#constant-model") is None
    assert "Optimal" in page.inner_text("#result-card")
    page.screenshot(path=str(ARTIFACTS / "issue29-streed-f1-numeric.png"), full_page=True)
