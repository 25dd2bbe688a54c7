# Check what the run, compare, λ-path and staff pages show at 1,280 px in Chromium (issue 29, items 5-7): the bounds
# chart shows the gap, the compare page fits four runs without breaking a word and plots CORELS's ROC, the λ axis
# labels whole values, and the staff tables neither break headings nor say "0 bytes" of a run that has not started.
# Screenshots in test-artifacts/.
import pytest
from django.urls import reverse
from django.utils import timezone

from conftest import make_user, shared_dataset
from corelsweb.ops.models import WorkerBeat
from corelsweb.runs.models import RegularizationPath, Run
from tests.browser.helpers import BROKEN_WORDS, CLIPPED, OVERLAP, open_drawn, shot, signed_in_page
from tests.factories import make_run
from tests.pages.helpers import solved_run, upload
from tests.pages.states import stored_run

pytestmark = pytest.mark.browser


def test_the_bounds_chart_shows_the_gap_on_its_own_axis(browser, live_server):
    alice = make_user("alice")
    run = stored_run(alice, upload(alice, "tic-tac-toe.csv"), "corels", "time_limit", False)
    gap = run.result["gap"]
    assert 0 < gap < 1
    page = open_drawn(
        signed_in_page(browser, live_server, alice), live_server.url + run.get_absolute_url(), ["#panel-trace"]
    )
    shot(page, "issue29-5-bounds-gap.png")
    assert page.text_content("#panel-trace .g-y2title") == "gap"
    assert f"Gap (upper − lower) / upper: {gap:.1%} at the end" in page.text_content("#panel-trace .legend")


def test_the_compare_page_fits_four_runs_breaks_no_word_and_plots_every_roc_hull(browser, live_server):
    alice = make_user("alice")
    dataset = upload(alice, "tic-tac-toe.csv")
    runs = []
    for name, status, title in (
        ("corels", "optimal", "CORELS with mined rules"),
        ("gosdt", "optimal", "GOSDT sparse tree"),
        ("osdt", "optimal", "OSDT sparse tree"),
        ("cart", "heuristic", "CART baseline, depth 3"),
    ):
        run = stored_run(alice, dataset, name, status, True)
        Run.objects.filter(pk=run.pk).update(name=title)
        runs.append(run)
    url = reverse("dataset-compare", args=[dataset.pk]) + "?" + "&".join(f"runs={r.pk}" for r in runs)
    page = open_drawn(
        signed_in_page(browser, live_server, alice), live_server.url + url, ["#roc-comparison", "#trace-comparison"]
    )
    shot(page, "issue29-6-compare-four-runs.png")
    legend = page.text_content("#roc-comparison .legend")
    found = {
        "table cut off": page.evaluate(CLIPPED, "#compare-table-wrap"),
        "words broken in the rule table": page.evaluate(BROKEN_WORDS, "table.rule-list td, table.rule-list th"),
        "legend over the axis title": page.evaluate(OVERLAP, ["#trace-comparison", ".legend", ".g-xtitle"]),
        "runs missing from the ROC plot": [r.title for r in runs if f"#{r.pk} {r.algorithm}" not in legend],
    }
    assert found == {
        "table cut off": [],
        "words broken in the rule table": [],
        "legend over the axis title": False,
        "runs missing from the ROC plot": [],
    }


def test_the_lambda_axis_labels_whole_values_not_bare_digits(browser, live_server):
    alice = make_user("alice")
    lambdas = [0.001, 0.003, 0.01, 0.03, 0.1]
    rows = [
        {"lambda": lam, "folds_done": 3, "leaves_mean": 9 - 2 * k, "valid_mean": 0.7 + k / 100, "valid_std": 0.01}
        | {"train_mean": 0.9 - k / 50, "failed": 0, "optimal": 3, "complete": True, "cart": None}
        for k, lam in enumerate(lambdas)
    ]
    path = RegularizationPath.objects.create(
        owner=alice,
        dataset=upload(alice, "tic-tac-toe.csv"),
        algorithm="gosdt",
        lambdas=lambdas,
        folds=3,
        summary=rows,
        chosen_lambda=0.01,
        status=RegularizationPath.Status.COMPLETE,
    )
    page = open_drawn(
        signed_in_page(browser, live_server, alice), live_server.url + path.get_absolute_url(), ["#path-figure"]
    )
    shot(page, "issue29-7-lambda-axis.png")
    labels = page.eval_on_selector_all("#path-figure .xtick text", "els => els.map(e => e.textContent)")
    assert labels and all(float(text.replace("−", "-")) in lambdas for text in labels), labels


def test_the_staff_tables_break_no_heading_and_a_run_not_started_has_no_memory_figure(browser, live_server):
    alice = make_user("alice")
    staff = make_user("sam")
    staff.is_staff = True
    staff.save()
    run = make_run(
        alice,
        status=Run.Status.RUNNING,
        worker="short@corelsweb-worker-1.internal.example:4242",
        started=timezone.now(),
    )
    WorkerBeat.objects.create(
        name="short@corelsweb-worker-1.internal.example:4242",
        queues="short,long",
        started=timezone.now(),
        last_seen=timezone.now(),
        current_run=run,
        load=1.5,
        rss_bytes=812 * 2**20,
        ready=["cart", "corels", "osdt", "gosdt", "streed", "osst", "rashomon"],
        warming="",
    )
    page = open_drawn(signed_in_page(browser, live_server, staff), live_server.url + reverse("ops-queue"))
    shot(page, "issue29-7-ops-queue.png")
    running = page.inner_text(f"tr:has(a[href='{reverse('ops-run', args=[run.pk])}'])")
    assert (page.evaluate(BROKEN_WORDS, "#ops-queue table th, #ops-queue table td"), "bytes" in running) == ([], False)
    assert "not started" in running


def test_the_run_form_shows_the_theorem_switches_folded_and_a_stratified_holdout(browser, live_server):
    alice = make_user("alice")
    dataset = upload(alice, "tic-tac-toe.csv")
    page = open_drawn(
        signed_in_page(browser, live_server, alice), live_server.url + f"/datasets/{dataset.pk}/runs/new/corels/"
    )
    shot(page, "issue29-8-run-form.png")
    assert not page.is_visible("#id_p_use_lookahead_bound")
    assert page.input_value("#id_evaluation") == "holdout:0.2"
    page.click("#expert-switches summary")
    assert page.is_visible("#id_p_use_lookahead_bound")


# Tick labels of a drawn figure that stick out of its drawing on the left (cut off by the card).
CUT_LABELS = """(figure) => {
  const root = document.querySelector(figure);
  const left = root.querySelector('.main-svg').getBoundingClientRect().left;
  return Array.from(root.querySelectorAll('.ytick text'))
    .filter((t) => t.getBoundingClientRect().left < left - 0.5)
    .map((t) => t.textContent);
}"""


def test_class_and_column_names_show_whole(browser, live_server):
    # Found by trying the app on loans.csv: the class MORTGAGE read "ORTGAGE" in the confusion matrix, and the column
    # months_since_last_delinq broke into "months_since_last_deli / nq" in the features searched.
    alice = make_user("alice")
    rows = "".join(
        f"{i % 7},{i * 37 % 1000 / 10},{('MORTGAGE', 'OWN', 'RENT')[(i % 7 + i % 5) % 3]}\n" for i in range(300)
    )
    dataset = upload(
        alice, "homes.csv", data=f"a,months_since_last_delinquency_reported,homeownership\n{rows}".encode()
    )
    run = solved_run(alice, dataset, "cart", {"max_depth": 2})
    page = open_drawn(
        signed_in_page(browser, live_server, alice), live_server.url + run.get_absolute_url(), ["#panel-confusion"]
    )
    shot(page, "pages-class-and-column-names.png")
    assert page.evaluate(CUT_LABELS, "#panel-confusion") == []
    assert page.evaluate(BROKEN_WORDS, ".searched-table td:first-child") == []


def test_no_table_breaks_a_word_and_no_card_overflows_on_a_wide_table(browser, live_server):
    # Found on loans.csv (55 columns): the column table read "Missi / ng", "categor / ical", "numeri / c".
    from tests.browser.test_pages_truth import OVERFLOWING_CARDS

    alice = make_user("alice")
    head = b"".join(shared_dataset("loans.csv").read_bytes().splitlines(keepends=True)[:301])
    dataset = upload(alice, "loans.csv", {"label": "homeownership", "ignore": ["emp_title"]}, data=head)
    run = solved_run(alice, dataset, "cart", {"max_depth": 2}, evaluation={"holdout": 0.2, "seed": 0})
    page = signed_in_page(browser, live_server, alice)
    for url, name in ((dataset.get_absolute_url(), "dataset"), (run.get_absolute_url(), "run")):
        open_drawn(page, live_server.url + url)
        shot(page, f"pages-loans-{name}.png")
        assert (page.evaluate(BROKEN_WORDS, "table th, table td"), page.evaluate(OVERFLOWING_CARDS)) == ([], []), url
