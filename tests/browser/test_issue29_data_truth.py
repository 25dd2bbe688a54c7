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
    page.screenshot(path=str(ARTIFACTS / "issue29-event-value-run.png"), full_page=True)
