from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0007_run_compiling_claimed"),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="timing",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
