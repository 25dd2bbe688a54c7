"""STreeD's parameter ``task`` is now ``objective``, as on every algorithm: rename it in stored runs and paths.

Runs keep their parameters twice (the run's ``params`` and its stored result's ``params``); both are
renamed, so a stored run still opens, reruns and exports with the same settings.
"""

from django.db import migrations


def _rename(params, old, new):
    if isinstance(params, dict) and old in params and new not in params:
        params = dict(params)
        params[new] = params.pop(old)
        return params, True
    return params, False


def forwards(apps, schema_editor, old="task", new="objective"):
    Run = apps.get_model("runs", "Run")
    for run in Run.objects.filter(algorithm="streed").iterator():
        params, changed = _rename(run.params, old, new)
        result = run.result
        if isinstance(result, dict):
            inner, changed_result = _rename(result.get("params"), old, new)
            if changed_result:
                result = {**result, "params": inner}
                changed = True
        if changed:
            run.params, run.result = params, result
            run.save(update_fields=["params", "result"])
    Path = apps.get_model("runs", "RegularizationPath")
    for path in Path.objects.filter(algorithm="streed").iterator():
        params, changed = _rename(path.params, old, new)
        if changed:
            path.params = params
            path.save(update_fields=["params"])


def backwards(apps, schema_editor):
    forwards(apps, schema_editor, old="objective", new="task")


class Migration(migrations.Migration):
    dependencies = [("runs", "0004_merge_names_and_message_identity")]
    operations = [migrations.RunPython(forwards, backwards)]
