"""Writing to the ledger behind its guards, as a broken or hostile writer would, for the
tests of the checks that must catch it."""

from django.db import connection


def post_behind_the_guards(*, reason, legs, player=None, table=None) -> int:
    """Write an entry with its legs and move the stored balances with every trigger off, as
    an intruder with the owner's rights could: the arithmetic stays right, only the meaning
    breaks."""
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")
        try:
            cursor.execute(
                "INSERT INTO cashier_entry (reason, player_id, table_id, request_fingerprint, "
                "memo, created_at) VALUES (%s, %s, %s, '', 'tampered', now()) RETURNING id",
                [reason, player and player.pk, table and table.pk],
            )
            entry_id = cursor.fetchone()[0]
            for account, amount in legs:
                cursor.execute(
                    "INSERT INTO cashier_posting (entry_id, account_id, amount) "
                    "VALUES (%s, %s, %s)",
                    [entry_id, account.pk, amount],
                )
                cursor.execute(
                    "UPDATE cashier_account SET balance = balance + %s WHERE id = %s",
                    [amount, account.pk],
                )
        finally:
            cursor.execute("SET session_replication_role = origin")
    return entry_id
