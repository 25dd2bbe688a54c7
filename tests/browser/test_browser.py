# Check the pages in headless Chromium: sign up, upload, run through a real worker, see the drawn tree, share it.
import pytest

from conftest import shared_dataset
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser


def test_sign_up_upload_run_and_see_the_tree(browser, live_server, celery_worker_process):
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    page.goto(f"{live_server.url}/accounts/signup/")
    page.fill("#id_username", "erin")
    page.fill("#id_password1", "a-long-pass-phrase-9")
    page.fill("#id_password2", "a-long-pass-phrase-9")
    page.click("button[type=submit]")
    page.wait_for_selector("text=Datasets")

    page.goto(f"{live_server.url}/datasets/upload/")
    page.set_input_files("#id_file", str(shared_dataset("compas-gosdt.csv")))
    page.click("form.card button[type=submit]")
    page.wait_for_selector("text=Label balance: two_year_recid")

    page.click("text=CART (greedy baseline)")
    page.fill("#id_p_max_depth", "3")
    page.click("text=Start the run")
    page.wait_for_selector("#model-figure[data-drawn='1']", timeout=90_000)
    text = page.inner_text("#model-figure")
    assert "priors_count" in text or "age" in text
    assert page.inner_text("#run-status").startswith("Finished")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "browser-run.png"), full_page=True)

    page.hover("#model-figure")
    with page.expect_download() as download:
        page.click("#model-figure [data-title='Download as SVG']")
    assert download.value.suggested_filename.endswith(".svg")
    assert "<svg" in download.value.path().read_text()[:500]

    page.click("#share-button")
    url = page.input_value("input.share-url")
    anonymous = browser.new_page()
    anonymous.goto(url)
    anonymous.wait_for_selector("#model-figure[data-drawn='1']")
    assert "read-only snapshot" in anonymous.content()
    anonymous.screenshot(path=str(ARTIFACTS / "browser-shared.png"), full_page=True)


def test_compare_export_share_and_open_signed_out(browser, live_server, celery_worker_process):
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    page.goto(f"{live_server.url}/accounts/signup/")
    page.fill("#id_username", "fran")
    page.fill("#id_password1", "a-long-pass-phrase-9")
    page.fill("#id_password2", "a-long-pass-phrase-9")
    page.click("button[type=submit]")
    page.goto(f"{live_server.url}/datasets/upload/")
    page.click("li:has-text('Breast cancer (continuous)') button")
    page.wait_for_selector("text=Label balance: diagnosis")
    dataset_url = page.url

    for depth, lam_mode in (("2", None), ("3", "max_leaves")):
        page.goto(dataset_url)
        page.click("text=CART (greedy baseline)")
        page.fill("#id_p_max_depth", depth)
        page.select_option("#id_evaluation", "holdout:0.2")
        if lam_mode:
            page.select_option("#id_lambda_mode", lam_mode)
            page.fill("#id_lambda_target", "4")
            # The server converts L into λ with the objective's own ℓ₀ as the form changes (issue 21).
            page.wait_for_selector("#lambda-explained:has-text('at most 4 leaves')")
        page.click("text=Start the run")
        page.wait_for_selector("#model-figure[data-drawn='1']", timeout=90_000)
        assert "Test data:" in page.inner_text("#test-data") and "Test" in page.inner_text("#metrics-table thead")

    page.goto(dataset_url)
    page.click("text=Compare runs, λ paths…")
    for box in page.query_selector_all("input[name=runs]")[:2]:
        box.check()
    page.click("#compare-button")
    page.wait_for_selector(".compare-table")
    assert "test accuracy" in page.inner_text(".compare-table")
    page.wait_for_function("document.querySelectorAll('.compare-models [data-drawn=\"1\"]').length == 2")
    page.screenshot(path=str(ARTIFACTS / "browser-compare.png"), full_page=True)

    page.click(".compare-table thead a >> nth=0")
    with page.expect_download() as download:
        page.click("text=Python function")
    source = download.value.path().read_text()
    namespace = {}
    exec(source, namespace)
    assert namespace["self_test"]() > 0

    page.check("input[name=include_data]")
    page.click("#share-button")
    url = page.input_value("input.share-url")
    anonymous = browser.new_context().new_page()
    anonymous.goto(url)
    anonymous.wait_for_selector("#model-figure[data-drawn='1']")
    text = anonymous.inner_text("main")
    assert "read-only snapshot" in text and "First rows" in text and "Sign in" in anonymous.inner_text("header")
    anonymous.screenshot(path=str(ARTIFACTS / "browser-shared-snapshot.png"), full_page=True)
