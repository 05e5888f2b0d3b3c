"""A password change revokes the user's API token, whatever changed it: the password page,
the admin, ``manage.py changepassword`` or ``ensure_admin`` (a stolen token must not outlive
the password its owner changed after noticing)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver

from judge_site.accounts import services

User = get_user_model()


@receiver(pre_save, sender=User, dispatch_uid="accounts.password_watch")
def _remember_password_change(
    sender: Any, instance: Any, update_fields: Any = None, **_: Any
) -> None:
    instance._judge_password_changed = False
    if instance.pk is None or (update_fields is not None and "password" not in update_fields):
        return
    before = sender.objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    instance._judge_password_changed = before is not None and before != instance.password


@receiver(post_save, sender=User, dispatch_uid="accounts.password_rotate_token")
def _rotate_token_on_password_change(sender: Any, instance: Any, created: bool, **_: Any) -> None:
    if not created and getattr(instance, "_judge_password_changed", False):
        instance._judge_password_changed = False
        services.token_rotate(instance)
