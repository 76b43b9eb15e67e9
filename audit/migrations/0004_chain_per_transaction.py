"""Chain a transaction's records all at once, at its first commit-time firing.

0002's trigger moved the chain head once per record, so a transaction writing k records
updated the one head row k times (and each look-up walked the row versions it had made). Now
each record carries, from a BEFORE INSERT trigger, the top-level transaction that wrote it
(`chain_txid`, `txid_current()`, whatever the INSERT said; a column only PostgreSQL knows, like
the ledger's `posted_txid`). The first deferred firing at commit links every record of its own
transaction not yet linked, in id order, and moves the head once; the later firings find their
record linked and return. A row inserted with the triggers switched off has no `chain_txid`,
so it is never linked and `verify_audit` names it.
"""

from django.db import migrations

INSTALL = r"""
ALTER TABLE audit_auditrecord ADD COLUMN chain_txid bigint;
COMMENT ON COLUMN audit_auditrecord.chain_txid IS
    'txid_current() of the transaction that wrote the record (set by trigger); only that '
    'transaction links it into the chain, at its commit';
CREATE INDEX audit_auditrecord_unchained ON audit_auditrecord (chain_txid) WHERE seq IS NULL;

CREATE OR REPLACE FUNCTION audit_record_clear_chain() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.seq := NULL;
    NEW.prev_hash := NULL;
    NEW.hash := NULL;
    NEW.chain_txid := txid_current();
    RETURN NEW;
END;
$$;

CREATE OR REPLACE FUNCTION audit_record_chain() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    head_seq bigint;
    head_hash text;
    pending record;
BEGIN
    PERFORM 1 FROM audit_auditrecord WHERE id = NEW.id AND seq IS NULL;
    IF NOT FOUND THEN
        RETURN NULL;  -- linked by an earlier firing of this commit
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
"""

PREVIOUS = r"""
DROP INDEX IF EXISTS audit_auditrecord_unchained;
ALTER TABLE audit_auditrecord DROP COLUMN IF EXISTS chain_txid;

CREATE OR REPLACE FUNCTION audit_record_clear_chain() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.seq := NULL;
    NEW.prev_hash := NULL;
    NEW.hash := NULL;
    RETURN NEW;
END;
$$;

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
"""


# CREATE OR REPLACE drops a function's SET clauses: pin the search_path again (as 0002 did).
PIN_SEARCH_PATH = (
    "DO $$ BEGIN "
    + " ".join(
        f"EXECUTE format('ALTER FUNCTION {guard} SET search_path = %I, pg_temp', current_schema());"
        for guard in ("audit_record_clear_chain()", "audit_record_chain()")
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
    dependencies = [("audit", "0003_verification_runs")]

    operations = [migrations.RunPython(install, remove)]
