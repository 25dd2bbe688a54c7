"""Move each column's histogram and quantile cuts out of ``columns`` into the deferred ``column_stats``."""

from django.db import migrations, models

STATS_KEYS = ("hist", "quantile_cuts", "sampled")


def split(apps, schema_editor):
    Dataset = apps.get_model("datasets", "Dataset")
    for dataset in Dataset.objects.all().iterator(chunk_size=50):
        stats = {
            c["name"]: {k: c[k] for k in STATS_KEYS if k in c}
            for c in dataset.columns
            if any(k in c for k in STATS_KEYS)
        }
        dataset.columns = [{k: v for k, v in c.items() if k not in STATS_KEYS} for c in dataset.columns]
        dataset.column_stats = stats
        dataset.save(update_fields=["columns", "column_stats"])


def join(apps, schema_editor):
    Dataset = apps.get_model("datasets", "Dataset")
    for dataset in Dataset.objects.all().iterator(chunk_size=50):
        dataset.columns = [{**c, **dataset.column_stats.get(c["name"], {})} for c in dataset.columns]
        dataset.save(update_fields=["columns"])


class Migration(migrations.Migration):
    dependencies = [("datasets", "0003_binarization_default_per_algorithm")]

    operations = [
        migrations.AddField(model_name="dataset", name="column_stats", field=models.JSONField(default=dict)),
        migrations.RunPython(split, join),
        migrations.AlterModelOptions(
            name="dataset", options={"base_manager_name": "objects", "ordering": ["-created"]}
        ),
    ]
