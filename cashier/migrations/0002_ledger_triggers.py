"""PostgreSQL guards the ledger itself, so that no code path (ours, raw SQL, a shell) can post an
unbalanced entry or rewrite history.

- A DEFERRABLE INITIALLY DEFERRED constraint trigger checks, at commit, that each new entry's
  postings sum to zero and that it has at least two legs (a hand settlement whose every net
  result and rake are zero may have none: it only records that the hand settled).
- A second one re-checks an entry whenever a posting is added to it, also at commit.
- Entries and postings refuse UPDATE and DELETE: corrections are new entries. (TRUNCATE, which
  only the test runner's flush uses, is not a row change and is not refused.)

Player-owned balances below zero are refused by a CHECK constraint from migration 0001.
"""

from django.db import migrations

INSTALL = r"""
CREATE OR REPLACE FUNCTION cashier_check_entry_balanced(check_entry_id bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    legs integer;
    total numeric;
    why text;
BEGIN
    SELECT reason INTO why FROM cashier_entry WHERE id = check_entry_id;
    SELECT count(*), coalesce(sum(amount), 0) INTO legs, total
      FROM cashier_posting WHERE entry_id = check_entry_id;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger entry % is unbalanced: its postings sum to %', check_entry_id, total
            USING ERRCODE = 'check_violation';
    END IF;
    IF legs = 1 OR (legs = 0 AND why IS DISTINCT FROM 'hand_settlement') THEN
        RAISE EXCEPTION 'ledger entry % has % posting(s); an entry needs at least two',
            check_entry_id, legs
            USING ERRCODE = 'check_violation';
    END IF;
END;
$$;

CREATE OR REPLACE FUNCTION cashier_entry_balanced_trigger() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM cashier_check_entry_balanced(NEW.id);
    RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION cashier_posting_balanced_trigger() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM cashier_check_entry_balanced(NEW.entry_id);
    RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER cashier_entry_balanced
    AFTER INSERT ON cashier_entry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION cashier_entry_balanced_trigger();

CREATE CONSTRAINT TRIGGER cashier_posting_balanced
    AFTER INSERT ON cashier_posting
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION cashier_posting_balanced_trigger();

CREATE OR REPLACE FUNCTION cashier_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% on % refused: ledger entries and postings are append-only; '
        'post a correcting entry instead', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

CREATE TRIGGER cashier_entry_immutable
    BEFORE UPDATE OR DELETE ON cashier_entry
    FOR EACH ROW EXECUTE FUNCTION cashier_refuse_change();

CREATE TRIGGER cashier_posting_immutable
    BEFORE UPDATE OR DELETE ON cashier_posting
    FOR EACH ROW EXECUTE FUNCTION cashier_refuse_change();
"""

REMOVE = r"""
DROP TRIGGER IF EXISTS cashier_posting_immutable ON cashier_posting;
DROP TRIGGER IF EXISTS cashier_entry_immutable ON cashier_entry;
DROP TRIGGER IF EXISTS cashier_posting_balanced ON cashier_posting;
DROP TRIGGER IF EXISTS cashier_entry_balanced ON cashier_entry;
DROP FUNCTION IF EXISTS cashier_refuse_change();
DROP FUNCTION IF EXISTS cashier_posting_balanced_trigger();
DROP FUNCTION IF EXISTS cashier_entry_balanced_trigger();
DROP FUNCTION IF EXISTS cashier_check_entry_balanced(bigint);
"""


def install(apps, schema_editor):
    schema_editor.execute(INSTALL, params=None)


def remove(apps, schema_editor):
    schema_editor.execute(REMOVE, params=None)


class Migration(migrations.Migration):
    dependencies = [("cashier", "0001_ledger")]

    operations = [migrations.RunPython(install, remove)]
