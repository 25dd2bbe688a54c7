# Runs record the id of the message sent for them (the reconciler finds lost ones by identity);
# a run's liveness is its worker's beat (ops.WorkerBeat), so the run's own heartbeat column goes.
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0002_evaluation_paths"),
    ]

    operations = [
        migrations.RemoveField(model_name="run", name="heartbeat"),
        migrations.AddField(model_name="run", name="message_id", field=models.CharField(blank=True, max_length=64)),
        migrations.AddField(model_name="run", name="message_sent", field=models.DateTimeField(blank=True, null=True)),
    ]
