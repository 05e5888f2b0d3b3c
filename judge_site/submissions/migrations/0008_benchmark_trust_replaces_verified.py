"""Stored benchmarks say ``trust`` (verified | charged | rejected, sandbox.grader.contracts.Trust) and
no longer the older ``verified`` flag: a result stored before ``trust`` existed gets it from
``verified`` (False: rejected), and ``verified`` goes. The API still derives ``verified`` from
``trust`` for its readers (selectors.submission_to_json)."""

from django.db import migrations

BATCH = 500


def trust_from_verified(apps, schema_editor):
    Submission = apps.get_model("submissions", "Submission")
    rows = Submission.objects.filter(benchmark__has_key="verified").only("pk", "benchmark")
    changed = []
    for sub in rows.iterator(chunk_size=BATCH):
        bench = dict(sub.benchmark)
        verified = bench.pop("verified")
        if not isinstance(bench.get("trust"), str) or not bench.get("trust"):
            bench["trust"] = "rejected" if verified is False else "verified"
        sub.benchmark = bench
        changed.append(sub)
        if len(changed) >= BATCH:
            Submission.objects.bulk_update(changed, ["benchmark"])
            changed = []
    Submission.objects.bulk_update(changed, ["benchmark"])


def verified_from_trust(apps, schema_editor):
    """Back: the flag as BenchmarkResult.to_json derives it (charged counts as believed)."""
    Submission = apps.get_model("submissions", "Submission")
    rows = Submission.objects.filter(benchmark__has_key="trust").only("pk", "benchmark")
    changed = []
    for sub in rows.iterator(chunk_size=BATCH):
        sub.benchmark = {**sub.benchmark, "verified": sub.benchmark["trust"] != "rejected"}
        changed.append(sub)
    Submission.objects.bulk_update(changed, ["benchmark"], batch_size=BATCH)


class Migration(migrations.Migration):
    dependencies = [("submissions", "0007_complete_results_secret_seed")]

    operations = [migrations.RunPython(trust_from_verified, verified_from_trust)]
