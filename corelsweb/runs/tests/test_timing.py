# A run's clock adds up (issue 26, item 4): its time from sending to the stored result is split into stages that
# follow one another on one clock, for every algorithm, and the run, compare and share pages and the result JSON
# show the same split.
import json

import pytest
from django.urls import reverse

from corelsweb.ops import warming
from corelsweb.shares.services import create_link
from solver import registry
from solver.timing import STAGE_NAMES, STAGES
from tests.pages.helpers import solved_run, upload

SURVIVAL = {"time": "time", "event": "event"}
FILES = {"osst": ("veterans-surv.csv", SURVIVAL, {"max_depth": 2})}


@pytest.fixture
def cold(monkeypatch):
    """This process as a worker that has compiled no kernels yet: its runs wait as ``compiling`` first."""
    monkeypatch.setattr(warming, "_state", {"ready": [], "warming": []})


def run_of(alice, algorithm, dataset=None):
    filename, roles, params = FILES.get(algorithm, ("monk1.csv", None, {}))
    dataset = dataset or upload(alice, filename, roles)
    return solved_run(alice, dataset, algorithm, params, evaluation={"holdout": 0.25})


@pytest.mark.parametrize("algorithm", sorted(registry.algorithms()))
def test_a_runs_stages_sum_to_its_time_from_sending_to_the_stored_result(alice, cold, algorithm):
    run = run_of(alice, algorithm)
    split = run.timing
    stages = split["stages"]
    assert set(stages) == set(STAGE_NAMES)  # (the database keeps JSON keys in its own order; pages use STAGES)
    assert sum(stages.values()) == pytest.approx(split["total_seconds"], rel=1e-12, abs=1e-12)
    for stage in ("queued", "reading", "preparing", "searching", "evaluating", "storing"):
        assert stages[stage] > 0.0, stage
    # The run was stamped finished while its result was being stored: the total reaches from its creation to
    # the end of storing (1 ms for the database's microseconds).
    waited = (run.finished - run.created).total_seconds()
    assert split["total_seconds"] - stages["storing"] - 1e-3 <= waited <= split["total_seconds"] + 1e-3
    # The stored result carries the split as it was before its own write; the run's counts the write too.
    stored = run.result["timing"]["stages"]
    assert {k: stored[k] for k in STAGE_NAMES if k != "storing"} == {
        k: stages[k] for k in STAGE_NAMES if k != "storing"
    }
    assert stored["storing"] <= stages["storing"]
    # The searching stage is the search the solver timed, not less.
    assert stages["searching"] >= run.result["stats"]["solve_seconds"]


def test_a_failed_run_keeps_its_split_too(alice):
    from corelsweb.runs.models import Run

    dataset = upload(alice, "monk1.csv")
    run = Run.objects.create(
        owner=alice, dataset=dataset, algorithm="cart", params=registry.get("cart").clean({}), roles={"label": "gone"}
    )
    from corelsweb.runs import lifecycle

    worker = lifecycle.worker_id()
    assert lifecycle.claim(run.pk, worker)
    lifecycle.execute(run.pk, worker)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED and run.result is None
    stages = run.timing["stages"]
    assert sum(stages.values()) == pytest.approx(run.timing["total_seconds"], rel=1e-12, abs=1e-12)
    assert stages["searching"] == 0.0 and stages["reading"] > 0.0


def test_the_run_compare_and_share_pages_and_the_result_json_show_the_split(alice_client, alice):
    first = run_of(alice, "cart")
    second = run_of(alice, "corels", first.dataset)
    page = alice_client.get(first.get_absolute_url()).content.decode()
    table = page[page.index('id="time-split"') : page.index("</details>", page.index('id="time-split"'))]
    stages = first.timing["stages"]
    for stage, words in STAGES:
        row = table[table.index(f'data-stage="{stage}"') :]
        assert (
            row.index(words.capitalize()) < row.index("</tr>") and f"{stages[stage]:.3f}" in row[: row.index("</tr>")]
        )
    total = f"{first.timing['total_seconds']:.2f}"
    assert f"{total} s from sending the run to its stored result" in table
    assert f"took {total} s from sending to result" in page
    assert f"{stages['searching']:.3f} s of {total} s in all" in page  # the summary's search time is the stage's

    compare = alice_client.get(
        reverse("dataset-compare", args=[first.dataset_id]), {"runs": [first.pk, second.pk]}
    ).content.decode()
    for run in (first, second):
        assert f"{run.timing['total_seconds']:.2f}" in compare and f"{run.timing['stages']['searching']:.3f}" in compare
    for _, words in STAGES:
        assert f"seconds {words}" in compare

    shared = alice_client.get(reverse("share-view", args=[create_link(first).token])).content.decode()
    assert 'id="time-split"' in shared and f"took {total} s from sending to result" in shared

    download = json.loads(alice_client.get(reverse("run-result-json", args=[first.pk])).content)
    assert download["timing"] == first.timing


def test_a_result_made_final_from_the_spool_keeps_the_split_it_was_spooled_with(alice):
    from django.utils import timezone

    from corelsweb.runs import recovery, storing
    from corelsweb.runs.models import Run

    done = run_of(alice, "cart")
    run = Run.objects.create(
        owner=alice,
        dataset=done.dataset,
        algorithm="cart",
        params=done.params,
        roles=done.roles,
        status=Run.Status.RUNNING,
        worker="gone:1",
        claimed=timezone.now(),
    )
    spooled = {"stages": {**dict.fromkeys(STAGE_NAMES, 0.0), "searching": 1.5, "storing": 0.5}, "total_seconds": 2.0}
    record = {"pk": run.pk, "holder": run.worker, "status": done.status, "result": done.result, "timing": spooled}
    assert storing.spool(run.pk, {**record, "error": "", "traceback": ""})
    assert recovery.finish_spooled() == 1
    run.refresh_from_db()
    assert run.timing == spooled and run.result["timing"] == spooled
