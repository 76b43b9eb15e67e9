"""PostgreSQL refuses more than arithmetic: no legs added to a committed entry, no account that
changes whose money it holds.

0002 checks that each entry balances at commit. That still let a later transaction add a
*balanced* pair of postings to an old entry (money moved under a past date and reason), and
let an account's kind, owner or table be rewritten (a wallet handed to another player). Now:

- Each entry records, on insert, the top-level transaction that wrote it (`posted_txid`, set
  by a BEFORE INSERT trigger from `txid_current()`, whatever the INSERT said; entries refuse
  UPDATE since 0002, so it cannot be changed later). A posting is accepted only for an entry
  written by the same top-level transaction, so nothing can be added once it committed. Not
  the row's `xmin`: Django nests `atomic` blocks as savepoints, whose rows carry the
  subtransaction's id, while `txid_current()` is the top-level one in any savepoint. An entry
  must be inserted before its postings (a posting for an entry this transaction cannot see
  is refused, so an uncommitted entry of another transaction cannot be borrowed either).
- An account's identity (id, kind, owner, table, creation time) never changes; its balance
  and its in-hand mark do.
- Every ledger trigger function (0002's too) reads its tables through a fixed search_path
  (this schema, then pg_temp), so a session cannot hide a real table behind a temporary one.

The column lives only in PostgreSQL (the model does not need it).
"""

from django.db import migrations

# Every function of the ledger's triggers, 0002's and these.
GUARDS = [
    "cashier_check_entry_balanced(bigint)",
    "cashier_entry_balanced_trigger()",
    "cashier_posting_balanced_trigger()",
    "cashier_refuse_change()",
    "cashier_entry_stamp_txid()",
    "cashier_posting_same_transaction()",
    "cashier_account_refuse_new_identity()",
]

INSTALL = r"""
ALTER TABLE cashier_entry ADD COLUMN posted_txid bigint;
COMMENT ON COLUMN cashier_entry.posted_txid IS
    'txid_current() of the transaction that wrote the entry (set by trigger); postings may only '
    'be added by that transaction';

CREATE OR REPLACE FUNCTION cashier_entry_stamp_txid() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.posted_txid := txid_current();
    RETURN NEW;
END;
$$;

CREATE TRIGGER cashier_entry_stamp_txid
    BEFORE INSERT ON cashier_entry
    FOR EACH ROW EXECUTE FUNCTION cashier_entry_stamp_txid();

CREATE OR REPLACE FUNCTION cashier_posting_same_transaction() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    written_by bigint;
BEGIN
    SELECT posted_txid INTO written_by FROM cashier_entry WHERE id = NEW.entry_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'posting refused: ledger entry % does not exist in this transaction; '
            'insert the entry before its postings', NEW.entry_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF written_by IS DISTINCT FROM txid_current() THEN
        RAISE EXCEPTION 'posting refused: ledger entry % was committed by an earlier '
            'transaction and takes no more postings; post a new entry instead', NEW.entry_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER cashier_posting_same_transaction
    BEFORE INSERT ON cashier_posting
    FOR EACH ROW EXECUTE FUNCTION cashier_posting_same_transaction();

CREATE OR REPLACE FUNCTION cashier_account_refuse_new_identity() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'UPDATE of account % refused: an account''s kind, owner, table, id and '
        'creation time never change; only its balance and in-hand mark do', OLD.id
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

CREATE TRIGGER cashier_account_identity_fixed
    BEFORE UPDATE ON cashier_account
    FOR EACH ROW
    WHEN ((OLD.id, OLD.kind, OLD.owner_id, OLD.table_id, OLD.created_at)
          IS DISTINCT FROM (NEW.id, NEW.kind, NEW.owner_id, NEW.table_id, NEW.created_at))
    EXECUTE FUNCTION cashier_account_refuse_new_identity();
"""

# Name the schema the ledger's functions read from, so that a session's temporary table called
# cashier_posting (pg_temp is otherwise searched first) cannot stand in for the real one.
PIN_SEARCH_PATH = (
    "DO $$ BEGIN "
    + " ".join(
        f"EXECUTE format('ALTER FUNCTION {guard} SET search_path = %I, pg_temp', current_schema());"
        for guard in GUARDS
    )
    + " END; $$;"
)

REMOVE = r"""
DROP TRIGGER IF EXISTS cashier_account_identity_fixed ON cashier_account;
DROP TRIGGER IF EXISTS cashier_posting_same_transaction ON cashier_posting;
DROP TRIGGER IF EXISTS cashier_entry_stamp_txid ON cashier_entry;
DROP FUNCTION IF EXISTS cashier_account_refuse_new_identity();
DROP FUNCTION IF EXISTS cashier_posting_same_transaction();
DROP FUNCTION IF EXISTS cashier_entry_stamp_txid();
ALTER TABLE cashier_entry DROP COLUMN IF EXISTS posted_txid;
""" + "".join(f"ALTER FUNCTION {guard} RESET search_path;\n" for guard in GUARDS[:4])


def install(apps, schema_editor):
    schema_editor.execute(INSTALL, params=None)
    schema_editor.execute(PIN_SEARCH_PATH, params=None)


def remove(apps, schema_editor):
    schema_editor.execute(REMOVE, params=None)


class Migration(migrations.Migration):
    dependencies = [("cashier", "0003_auditors_group")]

    operations = [migrations.RunPython(install, remove)]
