# Check issue 19: STreeD's `task` is `objective` like every algorithm's; stored runs are renamed, old names still read.
import importlib

from django.apps import apps

from corelsweb.runs.models import RegularizationPath, Run
from solver import registry
from tests.factories import make_dataset

migration = importlib.import_module("corelsweb.runs.migrations.0005_streed_task_is_objective")


def test_every_algorithm_names_what_it_optimises_objective():
    names = {a.name: {p.name for p in a.params} for a in registry.algorithms().values()}
    chooses = [n for n in names if n not in ("cart", "corels", "osdt", "osst")]
    assert all("objective" in names[n] and "task" not in names[n] for n in chooses), names


def test_the_former_name_is_still_accepted():
    assert registry.get("streed").clean({"task": "f1"})["objective"] == "f1"


def test_it_renames_stored_runs_and_paths(alice):
    dataset = make_dataset(alice)
    run = Run.objects.create(
        owner=alice,
        dataset=dataset,
        algorithm="streed",
        params={"task": "f1", "max_depth": 2},
        result={"params": {"task": "f1", "max_depth": 2}, "status": "optimal"},
    )
    other = Run.objects.create(owner=alice, dataset=dataset, algorithm="gosdt", params={"objective": "auc"})
    path = RegularizationPath.objects.create(
        owner=alice, dataset=dataset, algorithm="streed", params={"task": "accuracy"}
    )
    migration.forwards(apps, None)
    run.refresh_from_db()
    other.refresh_from_db()
    path.refresh_from_db()
    assert run.params == {"objective": "f1", "max_depth": 2}
    assert run.result["params"] == {"objective": "f1", "max_depth": 2} and run.result["status"] == "optimal"
    assert other.params == {"objective": "auc"}
    assert path.params == {"objective": "accuracy"}
    migration.backwards(apps, None)
    run.refresh_from_db()
    assert run.params == {"task": "f1", "max_depth": 2}
