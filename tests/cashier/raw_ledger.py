"""Ledger rows written in raw SQL, past the cashier's services: what the database's own guards
(the triggers and grants of cashier's migrations) must refuse by themselves."""

from django.utils import timezone


def insert_entry(cursor, reason="deposit", hand_id=None) -> int:
    cursor.execute(
        "INSERT INTO cashier_entry (reason, hand_id, request_fingerprint, memo, created_at) "
        "VALUES (%s, %s, '', 'raw', %s) RETURNING id",
        [reason, hand_id, timezone.now()],
    )
    return cursor.fetchone()[0]


def insert_posting(cursor, entry_id, account_id, amount):
    cursor.execute(
        "INSERT INTO cashier_posting (entry_id, account_id, amount) VALUES (%s, %s, %s)",
        [entry_id, account_id, amount],
    )
