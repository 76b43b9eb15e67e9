"""The deferred balance checks in one query each, inside the trigger functions.

0002's triggers each called `cashier_check_entry_balanced`, which read the entry's reason and
then its postings' count and sum: two queries and a nested function call (with its own
search_path switch) per firing, and a six-leg settlement fires seven of them at commit (the
entry's and one per posting; the per-posting one is what still catches a posting added after
`SET CONSTRAINTS ... IMMEDIATE` fired the entry's). Now each trigger function runs one query
itself. Same rules, same messages: an entry's postings sum to zero, and an entry has at least
two legs (none only for a hand settlement that moved nothing). `cashier_check_entry_balanced`
stays for anyone who calls it by hand.

Measured by the PostgreSQL backend's own CPU time per settlement (docs/benchmarks.md).
"""

from django.db import migrations

INSTALL = r"""
CREATE OR REPLACE FUNCTION cashier_entry_balanced_trigger() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    legs bigint;
    total numeric;
    why text;
BEGIN
    SELECT (SELECT reason FROM cashier_entry WHERE id = NEW.id), count(*),
           coalesce(sum(amount), 0)
      INTO why, legs, total
      FROM cashier_posting WHERE entry_id = NEW.id;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger entry % is unbalanced: its postings sum to %', NEW.id, total
            USING ERRCODE = 'check_violation';
    END IF;
    IF legs = 1 OR (legs = 0 AND why IS DISTINCT FROM 'hand_settlement') THEN
        RAISE EXCEPTION 'ledger entry % has % posting(s); an entry needs at least two',
            NEW.id, legs
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION cashier_posting_balanced_trigger() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    legs bigint;
    total numeric;
BEGIN
    -- The posting itself is one of the legs, so there is at least one.
    SELECT count(*), coalesce(sum(amount), 0) INTO legs, total
      FROM cashier_posting WHERE entry_id = NEW.entry_id;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger entry % is unbalanced: its postings sum to %',
            NEW.entry_id, total
            USING ERRCODE = 'check_violation';
    END IF;
    IF legs = 1 THEN
        RAISE EXCEPTION 'ledger entry % has % posting(s); an entry needs at least two',
            NEW.entry_id, legs
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$;
"""

PREVIOUS = r"""
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
"""

# CREATE OR REPLACE drops a function's SET clauses: pin the search_path again (as 0004).
PIN_SEARCH_PATH = (
    "DO $$ BEGIN "
    + " ".join(
        f"EXECUTE format('ALTER FUNCTION {name} SET search_path = %I, pg_temp', current_schema());"
        for name in ("cashier_entry_balanced_trigger()", "cashier_posting_balanced_trigger()")
    )
    + " END; $$;"
)


def install(apps, schema_editor):
    schema_editor.execute(INSTALL, params=None)
    schema_editor.execute(PIN_SEARCH_PATH, params=None)


def remove(apps, schema_editor):
    schema_editor.execute(PREVIOUS, params=None)
    schema_editor.execute(PIN_SEARCH_PATH, params=None)


class Migration(migrations.Migration):
    dependencies = [("cashier", "0006_house_shards")]

    operations = [migrations.RunPython(install, remove)]
