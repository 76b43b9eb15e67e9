"""Security events into the audit log, from Django's, axes' and DRF's signals.

- `security.login`, `security.logout`, `security.login_failed` (the username tried, never the
  password), `security.lockout` (django-axes locked the username from that address; sent again
  for each attempt while locked);
- `security.password_change` / `security.password_reset` (the reset link's page) and
  `security.email_change` (old and new address), from any route that saves the user (pages,
  admin, shell), the acting user taken from the request when there is one;
- `security.token_created` when an API token is made (its key is never recorded).
"""

from __future__ import annotations

from axes.signals import user_locked_out
from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver
from rest_framework.authtoken.models import Token

from audit.context import request_actor, request_address, request_route
from audit.models import AuditRecord
from audit.services import audit_record

User = get_user_model()
RESET_ROUTES = {"lobby:password_reset_confirm"}


def _where(request) -> dict:
    return {"ip": request_address(request), "route": request_route(request)}


@receiver(user_logged_in, dispatch_uid="audit_login")
def _logged_in(sender, request, user, **kwargs) -> None:
    audit_record(action="security.login", actor=user, subject=user, payload=_where(request))


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
    if raw or instance.pk is None:
        return
    if update_fields is not None and not {"password", "email"} & set(update_fields):
        return  # e.g. last_login on every login
    instance._audit_before = (
        sender.objects.filter(pk=instance.pk).values_list("password", "email").first()
    )


@receiver(post_save, sender=User, dispatch_uid="audit_user_after")
def _user_after(sender, instance, created, raw=False, **kwargs) -> None:
    before = getattr(instance, "_audit_before", None)
    instance._audit_before = None
    if raw or created or before is None:
        return
    password, email = before
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


@receiver(post_save, sender=Token, dispatch_uid="audit_token_created")
def _token_created(sender, instance, created, raw=False, **kwargs) -> None:
    if created and not raw:
        audit_record(
            action="security.token_created",
            actor=instance.user,
            subject=instance.user,
            payload={"ip": request_address(), "route": request_route()},
        )


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
