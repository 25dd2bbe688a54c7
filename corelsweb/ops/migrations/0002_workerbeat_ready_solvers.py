from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ops", "0001_worker_beats"),
    ]

    operations = [
        migrations.AddField(
            model_name="workerbeat",
            name="ready",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name="workerbeat",
            name="warming",
            field=models.CharField(blank=True, max_length=40),
        ),
    ]
