"""Link the chain at commit without ever waiting for the chain head.

0004's trigger locked the one `audit_auditchainhead` row at commit and held it through the
commit's WAL flush, so every transaction that wrote a record (every money movement) committed
one behind the other: with four clients 38% of the settlements' time was that queue. Now the
commit-time trigger takes the head with `FOR UPDATE SKIP LOCKED`:

- when the head is free (always, with one writer at a time) it links, in id order, its own
  transaction's records and every committed record still unlinked, and moves the head once;
- when another commit holds the head, it does not wait: its records commit unlinked
  (`seq` NULL, `chain_txid` set by the BEFORE INSERT trigger) and the next commit that takes
  the head links them, or `audit_chain_link()` (the beat's `audit.link_pending` every few
  seconds, and `verify_audit` before it reads) when the room is quiet.

So one global chain with one `seq` stays (anchors, exports and the offline check are
unchanged), commits no longer queue behind each other's flush, and the unlinked tail is
bounded in time: `verify_audit` links first and names any committed record still unlinked
after `AUDIT_LINK_BOUND_SECONDS` (docs/operations.md). A row inserted with the triggers off
has no `chain_txid` and is never linked (named as before).

Only a transaction at READ COMMITTED links other transactions' records (a REPEATABLE READ one
would fail on a record linked after its snapshot); it always links its own. The guard on
records lets the chain's UPDATE through from the trigger (trigger depth above 1, as before) or
from `audit_chain_link()`, which marks its own transaction in `audit.linking` (SECURITY
DEFINER: the app role, which has no UPDATE on the log, may call it but not update records).
"""

from django.db import migrations

INSTALL = r"""
DROP INDEX IF EXISTS audit_auditrecord_unchained;
CREATE INDEX audit_auditrecord_unchained ON audit_auditrecord (id) WHERE seq IS NULL;

-- Link pending records into the chain if the head is free; never wait for it. Returns how
-- many records it linked (-1 when another transaction held the head).
CREATE OR REPLACE FUNCTION audit_chain_link_pending(own_only boolean) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    head_seq bigint;
    head_hash text;
    pending record;
    linked bigint := 0;
BEGIN
    SELECT seq, hash INTO head_seq, head_hash
      FROM audit_auditchainhead WHERE id = 1 FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        IF EXISTS (SELECT 1 FROM audit_auditchainhead WHERE id = 1) THEN
            RETURN -1;  -- another commit is linking: it or the next one links ours
        END IF;
        INSERT INTO audit_auditchainhead (id, seq, hash) VALUES (1, 0, repeat('0', 64))
            ON CONFLICT (id) DO NOTHING;
        SELECT seq, hash INTO head_seq, head_hash
          FROM audit_auditchainhead WHERE id = 1 FOR UPDATE;
    END IF;
    PERFORM set_config('audit.linking', txid_current()::text, true);
    FOR pending IN
        SELECT id, content_hash FROM audit_auditrecord
         WHERE seq IS NULL AND chain_txid IS NOT NULL
           AND (chain_txid = txid_current() OR NOT own_only)
         ORDER BY id
    LOOP
        head_seq := head_seq + 1;
        UPDATE audit_auditrecord
           SET seq = head_seq, prev_hash = head_hash,
               hash = encode(sha256(convert_to(head_hash || pending.content_hash, 'UTF8')), 'hex')
         WHERE id = pending.id
        RETURNING hash INTO head_hash;
        linked := linked + 1;
    END LOOP;
    IF linked > 0 THEN
        UPDATE audit_auditchainhead SET seq = head_seq, hash = head_hash WHERE id = 1;
    END IF;
    PERFORM set_config('audit.linking', '', true);
    RETURN linked;
END;
$$;

-- What the beat and verify_audit call: link every committed record still unlinked.
CREATE OR REPLACE FUNCTION audit_chain_link() RETURNS bigint
LANGUAGE sql SECURITY DEFINER AS $$
    SELECT audit_chain_link_pending(false);
$$;

CREATE OR REPLACE FUNCTION audit_record_chain() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    PERFORM 1 FROM audit_auditrecord WHERE id = NEW.id AND seq IS NULL;
    IF NOT FOUND THEN
        RETURN NULL;  -- linked by an earlier firing of this commit
    END IF;
    PERFORM audit_chain_link_pending(
        current_setting('transaction_isolation') <> 'read committed');
    RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION audit_record_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.hash IS NULL
       AND (pg_trigger_depth() > 1
            OR current_setting('audit.linking', true) = txid_current()::text)
       AND (to_jsonb(OLD) - 'seq' - 'prev_hash' - 'hash')
           = (to_jsonb(NEW) - 'seq' - 'prev_hash' - 'hash') THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION '% on the audit log refused: its records are append-only', TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

CREATE OR REPLACE FUNCTION audit_head_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND (pg_trigger_depth() > 1
            OR current_setting('audit.linking', true) = txid_current()::text) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION '% on the audit chain head refused: only the chain trigger moves it', TG_OP
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;
"""

PREVIOUS = r"""
DROP FUNCTION IF EXISTS audit_chain_link();
DROP INDEX IF EXISTS audit_auditrecord_unchained;
CREATE INDEX audit_auditrecord_unchained ON audit_auditrecord (chain_txid) WHERE seq IS NULL;

CREATE OR REPLACE FUNCTION audit_record_chain() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    head_seq bigint;
    head_hash text;
    pending record;
BEGIN
    PERFORM 1 FROM audit_auditrecord WHERE id = NEW.id AND seq IS NULL;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    SELECT seq, hash INTO head_seq, head_hash FROM audit_auditchainhead WHERE id = 1 FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO audit_auditchainhead (id, seq, hash) VALUES (1, 0, repeat('0', 64))
            ON CONFLICT (id) DO NOTHING;
        SELECT seq, hash INTO head_seq, head_hash
          FROM audit_auditchainhead WHERE id = 1 FOR UPDATE;
    END IF;
    FOR pending IN
        SELECT id, content_hash FROM audit_auditrecord
         WHERE chain_txid = txid_current() AND seq IS NULL ORDER BY id
    LOOP
        head_seq := head_seq + 1;
        UPDATE audit_auditrecord
           SET seq = head_seq, prev_hash = head_hash,
               hash = encode(sha256(convert_to(head_hash || pending.content_hash, 'UTF8')), 'hex')
         WHERE id = pending.id
        RETURNING hash INTO head_hash;
    END LOOP;
    UPDATE audit_auditchainhead SET seq = head_seq, hash = head_hash WHERE id = 1;
    RETURN NULL;
END;
$$;

DROP FUNCTION IF EXISTS audit_chain_link_pending(boolean);

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
"""

FUNCTIONS = (
    "audit_chain_link_pending(boolean)",
    "audit_chain_link()",
    "audit_record_chain()",
    "audit_record_refuse_change()",
    "audit_head_refuse_change()",
)


def _pin_search_path(functions) -> str:
    """CREATE OR REPLACE drops a function's SET clauses: pin the search_path again (as 0002)."""
    return (
        "DO $$ BEGIN "
        + " ".join(
            f"EXECUTE format('ALTER FUNCTION {name} SET search_path = %I, pg_temp', "
            "current_schema());"
            for name in functions
        )
        + " END; $$;"
    )


def install(apps, schema_editor):
    schema_editor.execute(INSTALL, params=None)
    schema_editor.execute(_pin_search_path(FUNCTIONS), params=None)


def remove(apps, schema_editor):
    schema_editor.execute(PREVIOUS, params=None)
    schema_editor.execute(_pin_search_path(FUNCTIONS[2:]), params=None)


class Migration(migrations.Migration):
    dependencies = [("audit", "0005_backfill_ledger_entries")]

    operations = [migrations.RunPython(install, remove)]
