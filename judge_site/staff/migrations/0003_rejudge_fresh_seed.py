from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("staff", "0002_staff_capability_permissions")]

    operations = [
        migrations.AddField(
            model_name="rejudge",
            name="fresh_seed",
            field=models.BooleanField(default=False),
        ),
    ]
