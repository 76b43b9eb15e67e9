"""Record changes of staff power in the database, where no route can skip them.

The Python signals saw only what went through `save()` and the ORM's m2m managers: a queryset
`update(is_superuser=True)` or raw SQL as the app role left no record. Now triggers on
`auth_user` (a row inserted with `is_staff` or `is_superuser`, an UPDATE that changes
`is_active`, `is_staff` or `is_superuser`) and on `auth_user_groups` (rows inserted, deleted or
updated, one record per user per statement) write the `security.power_change` record
themselves, in the changing transaction, with its content hash computed as `audit_record`
would (the canonical JSON of audit/offline.py), so the chain's commit-time trigger links it and
`verify_audit` checks it like any other.

Who did it: the transaction's `audit.actor` setting (a JSON object with the actor's `id`,
`label`, `kind`, `ip` and `route`), which the room sets just before the change it makes
(audit/context.py, `power_actor_set`); without it the record's actor is unknown
(`actor_kind` "database"). Either way the payload names the database role that logged in
(`db_role`, `session_user`, which no setting can change). The functions run as the tables'
owner (SECURITY DEFINER, pinned search_path), so the app role cannot switch them off.
"""

from django.db import migrations, models

INSTALL = r"""
-- The canonical JSON of audit/offline.py (json.dumps with sort_keys, no spaces, no ASCII
-- escaping) for the values a power record holds: objects, arrays, strings, booleans, null
-- and integers. Keys sort by code point (COLLATE "C" on UTF-8); to_json escapes a string as
-- Python's json does (\" \\ \b \f \n \r \t, other control characters as \u00xx).
CREATE FUNCTION audit_canonical_json(value jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    CASE jsonb_typeof(value)
    WHEN 'object' THEN
        RETURN '{' || coalesce((
            SELECT string_agg(to_json(key)::text || ':' || audit_canonical_json(item), ','
                              ORDER BY key COLLATE "C")
              FROM jsonb_each(value) AS pair(key, item)), '') || '}';
    WHEN 'array' THEN
        RETURN '[' || coalesce((
            SELECT string_agg(audit_canonical_json(item), ',' ORDER BY place)
              FROM jsonb_array_elements(value) WITH ORDINALITY AS element(item, place)), '')
            || ']';
    ELSE
        RETURN value::text;
    END CASE;
END;
$$;

-- Python's datetime.isoformat() in UTC: microseconds only when there are some.
CREATE FUNCTION audit_iso_time(at timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
        || CASE WHEN extract(microseconds FROM at)::bigint % 1000000 <> 0
                THEN '.' || to_char(at AT TIME ZONE 'UTC', 'US') ELSE '' END
        || '+00:00';
$$;

-- One security.power_change record about a user, hashed as audit_record hashes it.
CREATE FUNCTION audit_power_record(user_id bigint, change text, before jsonb, after jsonb)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    actor jsonb := nullif(current_setting('audit.actor', true), '')::jsonb;
    at timestamptz := clock_timestamp();
    actor_id bigint := (actor ->> 'id')::bigint;
    actor_label text := left(coalesce(actor ->> 'label', ''), 150);
    actor_kind text := coalesce(actor ->> 'kind', 'database');
    label text := left(coalesce((SELECT username FROM auth_user WHERE id = user_id), ''), 200);
    payload jsonb;
    content text;
BEGIN
    payload := jsonb_build_object(
        'change', change, 'before', before, 'after', after,
        'ip', coalesce(actor ->> 'ip', ''), 'route', coalesce(actor ->> 'route', ''),
        'db_role', session_user::text);
    content := '{"action":"security.power_change"'
        || ',"actor_id":' || coalesce(actor_id::text, 'null')
        || ',"actor_kind":' || to_json(actor_kind)::text
        || ',"actor_label":' || to_json(actor_label)::text
        || ',"created_at":' || to_json(audit_iso_time(at))::text
        || ',"payload":' || audit_canonical_json(payload)
        || ',"reason":""'
        || ',"subject_id":' || to_json(user_id::text)::text
        || ',"subject_label":' || to_json(label)::text
        || ',"subject_type":"auth.user"}';
    INSERT INTO audit_auditrecord (created_at, actor_id, actor_label, actor_kind, action,
                                   subject_type, subject_id, subject_label, payload, reason,
                                   content_hash)
    VALUES (at, actor_id, actor_label, actor_kind, 'security.power_change', 'auth.user',
            user_id::text, label, payload, '',
            encode(sha256(convert_to(content, 'UTF8')), 'hex'));
END;
$$;

CREATE FUNCTION audit_user_flags_change() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    PERFORM audit_power_record(
        NEW.id, 'flags',
        CASE WHEN TG_OP = 'UPDATE' THEN jsonb_build_object(
            'is_active', OLD.is_active, 'is_staff', OLD.is_staff,
            'is_superuser', OLD.is_superuser) END,
        jsonb_build_object(
            'is_active', NEW.is_active, 'is_staff', NEW.is_staff,
            'is_superuser', NEW.is_superuser));
    RETURN NULL;
END;
$$;

CREATE TRIGGER audit_user_flags_insert AFTER INSERT ON auth_user
    FOR EACH ROW WHEN (NEW.is_staff OR NEW.is_superuser)
    EXECUTE FUNCTION audit_user_flags_change();
CREATE TRIGGER audit_user_flags_update AFTER UPDATE ON auth_user
    FOR EACH ROW WHEN (OLD.is_active IS DISTINCT FROM NEW.is_active
                       OR OLD.is_staff IS DISTINCT FROM NEW.is_staff
                       OR OLD.is_superuser IS DISTINCT FROM NEW.is_superuser)
    EXECUTE FUNCTION audit_user_flags_change();

-- Group membership, per statement: one record per user whose groups the statement changed,
-- with the group names before and after (sorted).
CREATE FUNCTION audit_user_groups_change() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    added_users bigint[] := '{}';
    added_groups bigint[] := '{}';
    removed_users bigint[] := '{}';
    removed_groups bigint[] := '{}';
    member bigint;
    names_before text[];
    names_after text[];
BEGIN
    IF TG_OP <> 'DELETE' THEN
        SELECT coalesce(array_agg(user_id), '{}'), coalesce(array_agg(group_id), '{}')
          INTO added_users, added_groups FROM added;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        SELECT coalesce(array_agg(user_id), '{}'), coalesce(array_agg(group_id), '{}')
          INTO removed_users, removed_groups FROM removed;
    END IF;
    FOR member IN SELECT DISTINCT one FROM unnest(added_users || removed_users) AS one ORDER BY 1
    LOOP
        names_after := ARRAY(
            SELECT g.name FROM auth_group g
             WHERE g.id IN (SELECT ug.group_id FROM auth_user_groups ug WHERE ug.user_id = member)
             ORDER BY g.name COLLATE "C");
        names_before := ARRAY(
            SELECT g.name FROM auth_group g
             WHERE (g.id IN (SELECT ug.group_id FROM auth_user_groups ug
                              WHERE ug.user_id = member)
                    AND g.id NOT IN (SELECT a.group_id
                                       FROM unnest(added_users, added_groups) AS a(user_id, group_id)
                                      WHERE a.user_id = member))
                OR g.id IN (SELECT r.group_id
                              FROM unnest(removed_users, removed_groups) AS r(user_id, group_id)
                             WHERE r.user_id = member)
             ORDER BY g.name COLLATE "C");
        IF names_before IS DISTINCT FROM names_after THEN
            PERFORM audit_power_record(member, 'groups', to_jsonb(names_before),
                                       to_jsonb(names_after));
        END IF;
    END LOOP;
    RETURN NULL;
END;
$$;

CREATE TRIGGER audit_user_groups_insert AFTER INSERT ON auth_user_groups
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION audit_user_groups_change();
CREATE TRIGGER audit_user_groups_delete AFTER DELETE ON auth_user_groups
    REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION audit_user_groups_change();
CREATE TRIGGER audit_user_groups_update AFTER UPDATE ON auth_user_groups
    REFERENCING OLD TABLE AS removed NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION audit_user_groups_change();
"""

REMOVE = r"""
DROP TRIGGER IF EXISTS audit_user_groups_update ON auth_user_groups;
DROP TRIGGER IF EXISTS audit_user_groups_delete ON auth_user_groups;
DROP TRIGGER IF EXISTS audit_user_groups_insert ON auth_user_groups;
DROP TRIGGER IF EXISTS audit_user_flags_update ON auth_user;
DROP TRIGGER IF EXISTS audit_user_flags_insert ON auth_user;
DROP FUNCTION IF EXISTS audit_user_groups_change();
DROP FUNCTION IF EXISTS audit_user_flags_change();
DROP FUNCTION IF EXISTS audit_power_record(bigint, text, jsonb, jsonb);
DROP FUNCTION IF EXISTS audit_iso_time(timestamptz);
DROP FUNCTION IF EXISTS audit_canonical_json(jsonb);
"""

FUNCTIONS = (
    "audit_canonical_json(jsonb)",
    "audit_iso_time(timestamptz)",
    "audit_power_record(bigint, text, jsonb, jsonb)",
    "audit_user_flags_change()",
    "audit_user_groups_change()",
)

# Like 0002's guards: the functions find only the schema's own tables and operators.
PIN_SEARCH_PATH = (
    "DO $$ BEGIN "
    + " ".join(
        f"EXECUTE format('ALTER FUNCTION {name} SET search_path = %I, pg_temp', current_schema());"
        for name in FUNCTIONS
    )
    + " END; $$;"
)


def install(apps, schema_editor):
    schema_editor.execute(INSTALL + PIN_SEARCH_PATH, params=None)


def remove(apps, schema_editor):
    schema_editor.execute(REMOVE, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0007_pending_by_transaction"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.AlterField(
            model_name="auditrecord",
            name="actor_kind",
            field=models.CharField(
                choices=[
                    ("system", "the room (no person)"),
                    ("player", "player"),
                    ("staff", "staff"),
                    ("anonymous", "not signed in"),
                    ("database", "unknown (database)"),
                ],
                max_length=12,
            ),
        ),
        migrations.RunPython(install, remove),
    ]
