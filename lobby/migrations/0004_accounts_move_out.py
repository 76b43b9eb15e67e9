"""Profile and EmailVerification now belong to accounts (accounts 0001): out of lobby's state
only, so their tables and rows stay."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("lobby", "0003_profile_language"),
        ("accounts", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="EmailVerification"),
                migrations.DeleteModel(name="Profile"),
            ],
            database_operations=[],
        ),
    ]
