"""Where identity documents are kept: a folder outside the web root (`VERIFICATION_STORAGE_DIR`,
default var/verification), with no address of its own. Files leave it only through the
permission-checked `verification.views.document_file`."""

from __future__ import annotations

import os

from django.conf import settings
from django.core.files.storage import FileSystemStorage


class PrivateStorage(FileSystemStorage):
    """The folder is read from the setting on every use, so a deployment (or a test) that
    changes it is followed; `url()` is refused: nothing links to these files directly."""

    @property
    def base_location(self) -> str:  # type: ignore[override]
        return str(settings.VERIFICATION_STORAGE_DIR)

    @property
    def location(self) -> str:  # type: ignore[override]
        return os.path.abspath(self.base_location)

    def url(self, name):
        raise ValueError("Identity documents have no public address.")


private_storage = PrivateStorage()


def private_storage_get() -> PrivateStorage:
    """The storage of `Document.file` (a callable, so migrations do not freeze a path)."""
    return private_storage
