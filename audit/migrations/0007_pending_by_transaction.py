"""Find the records to link by their transaction, not by scanning every unlinked index entry.

0006's linker found what to link with `WHERE seq IS NULL ORDER BY id` over the partial index
`(id) WHERE seq IS NULL`. Linking a record is an UPDATE that cannot be HOT (it sets the indexed
`seq`), so the version it replaces keeps its entry in that index until VACUUM removes it: the
index held one entry per record linked since the last VACUUM, and every commit's link read all
of them and visited their heap pages (a bitmap scan sets no kill bits). So a settlement's
commit cost grew with the records written since the last VACUUM.

Now a commit finds the records to link by transaction: the partial index is `(chain_txid,
id) WHERE seq IS NULL`, and the commit's link reads the keys of its own transaction and of
the transactions that committed records unlinked, which the new table `audit_chainpending`
lists: a commit that finds the chain head held by another (the only way a record commits
unlinked) writes its `txid_current()` there, in the same transaction as its records; the next
commit to take the head links those transactions' records with its own, in id order as
before, and deletes their rows. So a commit's link reads only the entries it links, however
long since VACUUM. The beat's `audit.link_pending` and `verify_audit` (`audit_chain_link()`)
still link every committed record still unlinked, by the whole look of 0006, every few
seconds instead of at every commit: a record the list missed is linked there as before.

The chain itself is unchanged: one chain, `seq` in link order, the same hashes, the same
anchors, exports and offline check; `verify_audit` reads the records as before (`seq IS NULL`
in id order, which the new index still serves). The table is written only by the linking
function (SECURITY DEFINER): the app role may only read it. Records left unlinked
when this migration runs are listed in it, so the next link finds them.
"""

from django.db import migrations

INSTALL = r"""
CREATE TABLE audit_chainpending (txid bigint PRIMARY KEY);
COMMENT ON TABLE audit_chainpending IS
    'transactions that committed audit records unlinked (the chain head was held): the next '
    'linker links their records and deletes the row';
INSERT INTO audit_chainpending (txid)
    SELECT DISTINCT chain_txid FROM audit_auditrecord
     WHERE seq IS NULL AND chain_txid IS NOT NULL;

DROP INDEX IF EXISTS audit_auditrecord_unchained;
CREATE INDEX audit_auditrecord_unchained ON audit_auditrecord (chain_txid, id) WHERE seq IS NULL;

-- Link pending records into the chain if the head is free; never wait for it. A commit
-- links its own transaction's records and (unless own_only) those of every transaction
-- audit_chainpending lists; with link_all, every committed record still unlinked (the
-- beat and verify_audit: a full look, every few seconds rather than at each commit). Returns
-- how many it linked (-1 when another transaction held the head; then this transaction's
-- records, if any, are listed for the next linker).
DROP FUNCTION IF EXISTS audit_chain_link_pending(boolean);
CREATE FUNCTION audit_chain_link_pending(own_only boolean, link_all boolean DEFAULT false)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    head_seq bigint;
    head_hash text;
    own bigint := txid_current_if_assigned();
    listed bigint[] := '{}';
    todo bigint[];
    one bigint;
BEGIN
    SELECT seq, hash INTO head_seq, head_hash
      FROM audit_auditchainhead WHERE id = 1 FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        IF EXISTS (SELECT 1 FROM audit_auditchainhead WHERE id = 1) THEN
            -- another commit is linking: the next one links ours
            IF own IS NOT NULL AND EXISTS (
                SELECT 1 FROM audit_auditrecord WHERE chain_txid = own AND seq IS NULL
            ) THEN
                INSERT INTO audit_chainpending (txid) VALUES (own) ON CONFLICT DO NOTHING;
            END IF;
            RETURN -1;
        END IF;
        INSERT INTO audit_auditchainhead (id, seq, hash) VALUES (1, 0, repeat('0', 64))
            ON CONFLICT (id) DO NOTHING;
        SELECT seq, hash INTO head_seq, head_hash
          FROM audit_auditchainhead WHERE id = 1 FOR UPDATE;
    END IF;
    IF NOT own_only THEN
        listed := ARRAY(SELECT txid FROM audit_chainpending);
    END IF;
    IF link_all AND NOT own_only THEN
        todo := ARRAY(SELECT id FROM audit_auditrecord
                       WHERE seq IS NULL AND chain_txid IS NOT NULL ORDER BY id);
    ELSE
        todo := ARRAY(SELECT id FROM audit_auditrecord
                       WHERE chain_txid = ANY (listed || own) AND seq IS NULL ORDER BY id);
    END IF;
    IF cardinality(todo) > 0 THEN
        PERFORM set_config('audit.linking', txid_current()::text, true);
        FOREACH one IN ARRAY todo LOOP
            head_seq := head_seq + 1;
            UPDATE audit_auditrecord
               SET seq = head_seq, prev_hash = head_hash,
                   hash = encode(sha256(convert_to(head_hash || content_hash, 'UTF8')), 'hex')
             WHERE id = one
            RETURNING hash INTO head_hash;
        END LOOP;
        UPDATE audit_auditchainhead SET seq = head_seq, hash = head_hash WHERE id = 1;
        PERFORM set_config('audit.linking', '', true);
    END IF;
    IF cardinality(listed) > 0 THEN
        DELETE FROM audit_chainpending WHERE txid = ANY (listed);
    END IF;
    RETURN cardinality(todo);
END;
$$;

-- What the beat and verify_audit call: link every committed record still unlinked.
CREATE OR REPLACE FUNCTION audit_chain_link() RETURNS bigint
LANGUAGE sql SECURITY DEFINER AS $$
    SELECT audit_chain_link_pending(false, true);
$$;
"""

PREVIOUS = r"""
DROP INDEX IF EXISTS audit_auditrecord_unchained;
CREATE INDEX audit_auditrecord_unchained ON audit_auditrecord (id) WHERE seq IS NULL;
DROP TABLE IF EXISTS audit_chainpending;
DROP FUNCTION IF EXISTS audit_chain_link_pending(boolean, boolean);

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

CREATE OR REPLACE FUNCTION audit_chain_link() RETURNS bigint
LANGUAGE sql SECURITY DEFINER AS $$
    SELECT audit_chain_link_pending(false);
$$;
"""


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
    schema_editor.execute(
        _pin_search_path(("audit_chain_link_pending(boolean, boolean)", "audit_chain_link()")),
        params=None,
    )


def remove(apps, schema_editor):
    schema_editor.execute(PREVIOUS, params=None)
    schema_editor.execute(
        _pin_search_path(("audit_chain_link_pending(boolean)", "audit_chain_link()")),
        params=None,
    )


class Migration(migrations.Migration):
    dependencies = [("audit", "0006_chain_without_waiting")]

    operations = [migrations.RunPython(install, remove)]
