"""Fill the aggregates (0005) from the submissions already stored, so that the leaderboards and
the problem list are right from the first request after an upgrade.

It calls the application's own reconcile (judge_site/submissions/aggregates.py) instead of copying
it here; on a new, empty database it does nothing."""

from django.db import migrations


def backfill(apps, schema_editor):
    if not apps.get_model("submissions", "Submission").objects.exists():
        return
    from judge_site.submissions.aggregates import stats_reconcile

    stats_reconcile()


class Migration(migrations.Migration):
    dependencies = [("submissions", "0005_aggregates_best_results_and_counters")]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
