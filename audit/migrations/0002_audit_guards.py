"""PostgreSQL keeps the audit log append-only and chains it at commit.

- A record's chain fields (`seq`, `prev_hash`, `hash`) are cleared on INSERT, whatever the
  INSERT said, and filled in by a DEFERRABLE INITIALLY DEFERRED constraint trigger when the
  writing transaction commits: it locks the one `audit_auditchainhead` row, links the record
  (`hash = sha256(prev_hash || content_hash)` as hex text, `seq = head + 1`) and moves the
  head. Taking the chain's lock at commit makes it the last lock any transaction takes, so a
  transaction holding it never waits for a row lock another one holds (no deadlock with the
  ledger's account locks), and it is held only while the transaction commits.
- Records refuse UPDATE and DELETE; the one exception is the chain trigger's own UPDATE of a
  record not yet chained (trigger depth above 1, every other field unchanged). The chain head
  refuses DELETE, and UPDATE outside the trigger.
- The chain function runs as its owner (SECURITY DEFINER, with a fixed search_path), so the
  app role needs only SELECT and INSERT on records and SELECT on the head
  (cashier/database_roles.py).

TRUNCATE (the test runner's flush) is not a row change and is not refused; the chain starts
again from the genesis hash when the head row is missing.
"""

from django.db import migrations

GUARDS = [
    "audit_record_clear_chain()",
    "audit_record_refuse_change()",
    "audit_head_refuse_change()",
    "audit_record_chain()",
]

INSTALL = r"""
CREATE OR REPLACE FUNCTION audit_record_clear_chain() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.seq := NULL;
    NEW.prev_hash := NULL;
    NEW.hash := NULL;
    RETURN NEW;
END;
$$;

CREATE TRIGGER audit_record_clear_chain
    BEFORE INSERT ON audit_auditrecord
    FOR EACH ROW EXECUTE FUNCTION audit_record_clear_chain();

CREATE OR REPLACE FUNCTION audit_record_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND pg_trigger_depth() > 1 AND OLD.hash IS NULL
       AND (to_jsonb(OLD) - 'seq' - 'prev_hash' - 'hash')
           = (to_jsonb(NEW) - 'seq' - 'prev_hash' - 'hash') THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION '% on the audit log refused: its records are append-only', TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

CREATE TRIGGER audit_record_immutable
    BEFORE UPDATE OR DELETE ON audit_auditrecord
    FOR EACH ROW EXECUTE FUNCTION audit_record_refuse_change();

CREATE OR REPLACE FUNCTION audit_head_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND pg_trigger_depth() > 1 THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION '% on the audit chain head refused: only the chain trigger moves it', TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

CREATE TRIGGER audit_head_immutable
    BEFORE UPDATE OR DELETE ON audit_auditchainhead
    FOR EACH ROW EXECUTE FUNCTION audit_head_refuse_change();

CREATE OR REPLACE FUNCTION audit_record_chain() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    head_seq bigint;
    head_hash text;
    link text;
BEGIN
    SELECT seq, hash INTO head_seq, head_hash FROM audit_auditchainhead WHERE id = 1 FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO audit_auditchainhead (id, seq, hash) VALUES (1, 0, repeat('0', 64))
            ON CONFLICT (id) DO NOTHING;
        SELECT seq, hash INTO head_seq, head_hash
          FROM audit_auditchainhead WHERE id = 1 FOR UPDATE;
    END IF;
    link := encode(sha256(convert_to(head_hash || NEW.content_hash, 'UTF8')), 'hex');
    UPDATE audit_auditrecord SET seq = head_seq + 1, prev_hash = head_hash, hash = link
     WHERE id = NEW.id;
    UPDATE audit_auditchainhead SET seq = head_seq + 1, hash = link WHERE id = 1;
    RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER audit_record_chain
    AFTER INSERT ON audit_auditrecord
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION audit_record_chain();

INSERT INTO audit_auditchainhead (id, seq, hash) VALUES (1, 0, repeat('0', 64))
    ON CONFLICT (id) DO NOTHING;
"""

# Read the audit tables through this schema only (then pg_temp), so a session's temporary
# table cannot stand in for the real one (as the ledger's functions do, cashier 0004).
PIN_SEARCH_PATH = (
    "DO $$ BEGIN "
    + " ".join(
        f"EXECUTE format('ALTER FUNCTION {guard} SET search_path = %I, pg_temp', current_schema());"
        for guard in GUARDS
    )
    + " END; $$;"
)

REMOVE = r"""
DROP TRIGGER IF EXISTS audit_record_chain ON audit_auditrecord;
DROP TRIGGER IF EXISTS audit_head_immutable ON audit_auditchainhead;
DROP TRIGGER IF EXISTS audit_record_immutable ON audit_auditrecord;
DROP TRIGGER IF EXISTS audit_record_clear_chain ON audit_auditrecord;
DROP FUNCTION IF EXISTS audit_record_chain();
DROP FUNCTION IF EXISTS audit_head_refuse_change();
DROP FUNCTION IF EXISTS audit_record_refuse_change();
DROP FUNCTION IF EXISTS audit_record_clear_chain();
"""


def install(apps, schema_editor):
    schema_editor.execute(INSTALL, params=None)
    schema_editor.execute(PIN_SEARCH_PATH, params=None)


def remove(apps, schema_editor):
    schema_editor.execute(REMOVE, params=None)


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_audit_log")]

    operations = [migrations.RunPython(install, remove)]
