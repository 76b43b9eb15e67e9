"""Security events into the audit log, from Django's, axes' and DRF's signals.

- `security.login` (with the browser's user agent), `security.logout`,
  `security.login_failed` (the username tried, never the
  password), `security.lockout` (django-axes locked the username from that address; sent again
  for each attempt while locked);
- `security.password_change` / `security.password_reset` (the reset link's page) and
  `security.email_change` (old and new address), from any route that saves the user (pages,
  admin, shell), the acting user taken from the request when there is one;
- `security.token_created` / `security.token_deleted` when an API token is made or deleted
  (by its owner or by staff in the admin; its key is never recorded);
- `security.power_change` when a permission is given to or taken from a user or a group, from
  any route (admin, shell), with the values before and after. The database records the other
  changes of power itself, however they are made (`is_active`, `is_staff`, `is_superuser`,
  group membership: audit migration 0008); the signals here only name the acting user to it
  (`power_actor_set`) just before the ORM makes such a change.
"""

from __future__ import annotations

from axes.signals import user_locked_out
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed
from django.db.models.signals import m2m_changed, post_delete, post_save, pre_save
from django.dispatch import receiver
from rest_framework.authtoken.models import Token, TokenProxy

from audit.context import power_actor_set, request_actor, request_address, request_route
from audit.models import AuditRecord
from audit.services import audit_record

User = get_user_model()
RESET_ROUTES = {"lobby:password_reset_confirm"}
POWER_FLAGS = ("is_active", "is_staff", "is_superuser")


def _where(request) -> dict:
    return {"ip": request_address(request), "route": request_route(request)}


@receiver(user_logged_in, dispatch_uid="audit_login")
def _logged_in(sender, request, user, **kwargs) -> None:
    # The browser's own name too: the integrity checks look for accounts sharing a device.
    agent = (request.META.get("HTTP_USER_AGENT") or "")[:300] if request is not None else ""
    payload = {**_where(request), "user_agent": agent}
    audit_record(action="security.login", actor=user, subject=user, payload=payload)


@receiver(user_logged_out, dispatch_uid="audit_logout")
def _logged_out(sender, request, user, **kwargs) -> None:
    if user is not None:
        audit_record(action="security.logout", actor=user, subject=user, payload=_where(request))


@receiver(user_login_failed, dispatch_uid="audit_login_failed")
def _login_failed(sender, credentials, request=None, **kwargs) -> None:
    username = str(credentials.get("username") or "")[:150]
    audit_record(
        action="security.login_failed",
        actor_kind=AuditRecord.ActorKind.ANONYMOUS,
        payload={"username": username, **_where(request)},
    )


@receiver(user_locked_out, dispatch_uid="audit_lockout")
def _locked_out(sender, request, username, ip_address, **kwargs) -> None:
    audit_record(
        action="security.lockout",
        actor_kind=AuditRecord.ActorKind.ANONYMOUS,
        payload={"username": str(username or "")[:150], "ip": ip_address or ""},
        reason="too many failed logins from one address",
    )


# -- password and e-mail changes: compare with the stored row before the save


@receiver(pre_save, sender=User, dispatch_uid="audit_user_before")
def _user_before(sender, instance, raw=False, update_fields=None, **kwargs) -> None:
    instance._audit_before = None
    if raw:
        return
    if instance.pk is None:
        if instance.is_staff or instance.is_superuser:
            power_actor_set()  # the database records a user made with powers
        return
    if update_fields is not None and not {"password", "email", *POWER_FLAGS} & set(update_fields):
        return  # e.g. last_login on every login
    instance._audit_before = (
        sender.objects.filter(pk=instance.pk).values_list("password", "email", *POWER_FLAGS).first()
    )
    if instance._audit_before is not None and tuple(instance._audit_before[2:]) != tuple(
        getattr(instance, flag) for flag in POWER_FLAGS
    ):
        power_actor_set()  # the database records the change of flags


@receiver(post_save, sender=User, dispatch_uid="audit_user_after")
def _user_after(sender, instance, created, raw=False, **kwargs) -> None:
    before = getattr(instance, "_audit_before", None)
    instance._audit_before = None
    if raw:
        return
    if created or before is None:
        return
    password, email, *_ = before
    actor = request_actor() or None
    where = {"ip": request_address(), "route": request_route()}
    if instance.password != password:
        reset = where["route"] in RESET_ROUTES
        audit_record(
            action="security.password_reset" if reset else "security.password_change",
            actor=actor or (instance if reset else None),
            subject=instance,
            payload=where,
        )
    if instance.email != email:
        audit_record(
            action="security.email_change",
            actor=actor,
            subject=instance,
            payload={"old": email, "new": instance.email, **where},
        )


def _token_where(token) -> dict:
    return {"user_id": token.user_id, "ip": request_address(), "route": request_route()}


@receiver(post_save, sender=Token, dispatch_uid="audit_token_created")
@receiver(post_save, sender=TokenProxy, dispatch_uid="audit_token_proxy_created")
def _token_created(sender, instance, created, raw=False, **kwargs) -> None:
    """A token made by its owner (the API) or by staff (the admin saves the proxy model)."""
    if created and not raw:
        audit_record(
            action="security.token_created",
            actor=request_actor() or instance.user,
            subject=instance.user,
            payload={"before": None, "after": {"token": True}, **_token_where(instance)},
        )


@receiver(post_delete, sender=Token, dispatch_uid="audit_token_deleted")
def _token_deleted(sender, instance, **kwargs) -> None:
    audit_record(
        action="security.token_deleted",
        actor=request_actor() or None,
        subject=get_user_model()(pk=instance.user_id),
        payload={"before": {"token": True}, "after": None, **_token_where(instance)},
    )


# -- staff powers: permissions, whoever changes them and however (flags and groups: 0008)


def _power_change(subject, change: str, before, after) -> None:
    audit_record(
        action="security.power_change",
        actor=request_actor() or None,
        subject=subject,
        payload={
            "change": change,
            "before": before,
            "after": after,
            "ip": request_address(),
            "route": request_route(),
        },
    )


def _names(owner, relation: str) -> list[str]:
    permissions = getattr(owner, relation).select_related("content_type")
    return sorted(f"{p.content_type.app_label}.{p.codename}" for p in permissions)


# (relation on the owner, the owner's model, the other side's accessor to owners)
_POWER_RELATIONS = {
    User.user_permissions.through: ("user_permissions", User, "user_set"),
    Group.permissions.through: ("permissions", Group, "group_set"),
}


def _owners(sender, instance, action: str, reverse: bool, pk_set) -> list:
    """The users or groups whose powers this m2m change touches."""
    _, owner_model, other_side = _POWER_RELATIONS[sender]
    if not reverse:
        return [instance]
    if action == "pre_clear":  # from the other side: every owner it had
        return list(getattr(instance, other_side).all())
    return list(owner_model.objects.filter(pk__in=pk_set or ()))


@receiver(m2m_changed, dispatch_uid="audit_power_m2m")
def _power_m2m(sender, instance, action, reverse, model, pk_set, **kwargs) -> None:
    """Names before (pre_add, pre_remove, pre_clear) and after (post_*), one record per owner
    whose set changed. Group membership the database records: only name who changes it."""
    if sender is User.groups.through:
        if action.startswith("pre_"):
            power_actor_set()
        return
    if sender not in _POWER_RELATIONS:
        return
    relation = _POWER_RELATIONS[sender][0]
    if action.startswith("pre_"):
        owners = _owners(sender, instance, action, reverse, pk_set)
        instance._audit_power_before = {o.pk: (o, _names(o, relation)) for o in owners}
        return
    for owner, before in getattr(instance, "_audit_power_before", {}).values():
        after = _names(owner, relation)
        if after != before:
            _power_change(owner, relation, before, after)
    instance._audit_power_before = {}


# -- fairness, table incidents and responsible gaming: each row, as it is created, in the
# transaction that creates it (the services write these rows inside their own transaction)


@receiver(post_save, sender="poker.RngCheck", dispatch_uid="audit_rng_check")
def _rng_check(sender, instance, created, raw=False, **kwargs) -> None:
    if created and not raw:
        audit_record(
            action="rng.check",
            actor=request_actor(),
            subject=instance,
            payload={
                "passed": instance.passed,
                "form": instance.form,
                "generator": instance.generator,
                "shuffles": instance.shuffles,
                "raw_draws": instance.raw_draws,
                "alpha": instance.alpha,
                "failed": [s["name"] for s in instance.statistics if not s.get("passed")],
                "seconds": instance.seconds,
            },
        )


@receiver(post_save, sender="poker.HandIncident", dispatch_uid="audit_hand_incident")
def _hand_incident(sender, instance, created, raw=False, **kwargs) -> None:
    if created and not raw:
        audit_record(
            action="table.hand_cancelled",
            actor=request_actor(),
            subject=instance.hand,
            payload={
                "incident_id": instance.pk,
                "table_id": instance.table_id,
                "code": instance.code,
                "detail": instance.detail,
            },
            reason=instance.reason,
        )


@receiver(post_save, sender="responsible.ResponsibleGamingEvent", dispatch_uid="audit_rg_event")
def _responsible_event(sender, instance, created, raw=False, **kwargs) -> None:
    if created and not raw:
        audit_record(
            action=f"responsible.{instance.kind}",
            actor=request_actor() or instance.player,
            subject=instance.player,
            payload={"event_id": instance.pk, "detail": instance.detail},
            now=instance.created_at,
        )
