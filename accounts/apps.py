from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Players' profiles, e-mail proof, display names and language: the lowest app of ours.

    It imports nothing of the room but `config`'s plumbing, so every other app may read a
    player's display name or e-mail proof (pyproject.toml, contract `apps-layered`).
    """

    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"
