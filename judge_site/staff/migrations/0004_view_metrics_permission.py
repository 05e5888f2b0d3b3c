from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("staff", "0003_rejudge_fresh_seed")]

    operations = [
        migrations.AlterModelOptions(
            name="staffcapability",
            options={
                "default_permissions": (),
                "managed": False,
                "permissions": [
                    ("upload_package",
                     "Upload package versions and make one a problem's current version"),
                    ("publish_problem", "Publish and unpublish problems"),
                    ("rejudge", "Start and follow rejudges"),
                    ("read_submissions", "Read students' code and hidden-test details"),
                    ("view_metrics", "Read the operations figures on /metrics and the dashboard"),
                ],
            },
        ),
    ]
