# A Rashomon run in headless Chromium: upload a small binary file, run the set through a real worker, see the
# exact count, filter it (the server recounts on the stored graph), open one of the best trees.
import re

import pytest

from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

ROWS = [(a, b, c, d) for a in (0, 1) for b in (0, 1) for c in (0, 1) for d in (0, 1)] * 3
CSV = "smoker,exercise,family_history,urban,disease\n" + "".join(
    f"{a},{b},{c},{d},{int((a and not b) or (c and i % 5 != 0))}\n" for i, (a, b, c, d) in enumerate(ROWS)
)


def number(text):
    return int(re.sub(r"[^0-9]", "", text))


def test_rashomon_count_filter_and_open_a_tree(browser, live_server, celery_worker_process, tmp_path):
    data = tmp_path / "smokers.csv"
    data.write_text(CSV)
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    page.goto(f"{live_server.url}/accounts/signup/")
    page.fill("#id_username", "rosa")
    page.fill("#id_password1", "a-long-pass-phrase-9")
    page.fill("#id_password2", "a-long-pass-phrase-9")
    page.click("button[type=submit]")
    page.wait_for_selector("text=Datasets")

    page.goto(f"{live_server.url}/datasets/upload/")
    page.set_input_files("#id_file", str(data))
    page.click("form.card button[type=submit]")
    page.wait_for_selector("text=Label balance: disease")

    page.click("text=Rashomon set (every near-optimal sparse tree, TreeFARMS)")
    page.fill("#id_p_max_depth", "2")
    page.fill("#id_p_epsilon", "0.5")
    page.click("text=Start the run")
    page.wait_for_selector("#rashomon-count", timeout=120_000)
    total = number(page.inner_text("#rashomon-count strong"))
    assert total > 1
    assert number(page.inner_text("#rashomon-filtered")) == total

    # Must not use the first feature listed: the server counts the trees left on the set's graph.
    select = page.locator("select[name=exclude]")
    feature = select.locator("option").first.get_attribute("value")
    select.select_option([feature])
    page.wait_for_function(
        "t => document.getElementById('rashomon-filtered').textContent.replace(/\\D/g, '') !== t", arg=str(total)
    )
    filtered = number(page.inner_text("#rashomon-filtered"))
    assert 0 <= filtered < total
    # The list of best trees follows the filters: only trees that pass stay visible, and the page says so.
    listed = page.locator("#rashomon-trees > li").count()
    visible = page.locator("#rashomon-trees > li:not([hidden])").count()
    assert visible <= min(filtered, listed)
    if total <= listed:  # every tree is listed, so the ones the filter drops are hidden
        assert visible == filtered < listed and "pass these filters" in page.inner_text("#rashomon-trees-note")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "browser-rashomon-filtered.png"), full_page=True)

    select.select_option([])
    page.wait_for_function(
        "t => document.getElementById('rashomon-filtered').textContent.replace(/\\D/g, '') === t", arg=str(total)
    )
    assert page.locator("#rashomon-trees > li:not([hidden])").count() == listed
    page.click("#rashomon-trees li:first-child details summary")
    page.wait_for_selector("[data-figure='rashomon-tree-0'][data-drawn='1']")
    assert page.locator("[data-figure='rashomon-tree-0'] svg").count() >= 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "browser-rashomon.png"), full_page=True)
