from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0002_evaluation_paths"),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="name",
            field=models.CharField(blank=True, max_length=120),
        ),
    ]
