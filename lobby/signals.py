"""A new password ends every other way in: the account's API tokens and its other sessions.

Whoever sets it (the player's password page, the reset link, staff in the admin, a shell with
`set_password`), a stolen token or session must not outlive it. The player's own session on the
password page is kept (Django then rotates it); every other one is deleted. A hasher upgrade at
login (the same password stored again with a newer hash) is not a change.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import is_password_usable
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver

from audit.context import current_request
from responsible.services import player_sessions_end

User = get_user_model()


@receiver(pre_save, sender=User, dispatch_uid="lobby_password_before")
def _password_before(sender, instance, raw=False, update_fields=None, **kwargs) -> None:
    instance._old_password_hash = None
    if raw or instance.pk is None:
        return
    if update_fields is not None and "password" not in update_fields:
        return
    instance._old_password_hash = (
        sender.objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    )


@receiver(post_save, sender=User, dispatch_uid="lobby_password_after")
def _password_after(sender, instance, created, raw=False, **kwargs) -> None:
    old = getattr(instance, "_old_password_hash", None)
    instance._old_password_hash = None
    if raw or created or old is None or old == instance.password:
        return
    rehashed = getattr(instance, "_password", None) is None and (
        is_password_usable(old) and is_password_usable(instance.password)
    )
    if rehashed:
        return
    request = current_request()
    keep = None
    user = getattr(request, "user", None)
    if user is not None and user.pk == instance.pk and hasattr(request, "session"):
        keep = request.session.session_key
    player_sessions_end(player=instance, keep=keep)
