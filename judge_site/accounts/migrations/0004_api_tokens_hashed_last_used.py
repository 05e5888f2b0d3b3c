"""API tokens stored hashed: the ``key`` column becomes ``digest`` (the SHA-256 of the token,
computed here for every existing row, so existing tokens keep working), with a short ``prefix``
to recognise a token by, and the time it was last used.

Going back cannot restore the tokens (only their digests are left): the rows are deleted, and
their owners make new tokens.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.db import migrations, models


def hash_keys(apps: Any, schema_editor: Any) -> None:
    ApiToken = apps.get_model("accounts", "ApiToken")
    for token in ApiToken.objects.all().iterator():
        plain = token.key
        token.prefix = plain[:8]
        token.key = hashlib.sha256(plain.encode()).hexdigest()
        token.save(update_fields=["key", "prefix"])


def drop_tokens(apps: Any, schema_editor: Any) -> None:
    apps.get_model("accounts", "ApiToken").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_email_profile_mail_requests_rejudge_notices")]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="prefix",
            field=models.CharField(blank=True, max_length=8),
        ),
        migrations.AddField(
            model_name="apitoken",
            name="last_used_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(hash_keys, drop_tokens),
        migrations.RenameField(model_name="apitoken", old_name="key", new_name="digest"),
    ]
