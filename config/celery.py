"""The Celery app: timers and periodic sweeps. Broker and schedule come from settings."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("room")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
