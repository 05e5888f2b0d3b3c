"""The complete result is kept (hidden tests' details, the judging's secret seed): the rows
judged before were filtered for students at judging time and say so (``tests_filtered``)."""

from django.db import migrations, models


def mark_filtered(apps, schema_editor):
    Submission = apps.get_model("submissions", "Submission")
    Submission.objects.exclude(tests=[]).update(tests_filtered=True)


class Migration(migrations.Migration):
    dependencies = [("submissions", "0006_backfill_aggregates")]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="secret_seed",
            field=models.BigIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="submission",
            name="tests_filtered",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(mark_filtered, migrations.RunPython.noop),
    ]
