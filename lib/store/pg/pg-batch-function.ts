// `gateway_batch(p jsonb)` is the ledger's one round trip per batch (sent by pg-batch-queue.ts): it
// claims the ends (deleting the reservation row is the claim, as on SQLite) and the holds of dead owners
// (sweep), locks every level row the batch touches in one global order (organizations, keys,
// projects, environments, each sorted; a batch of one key takes them in that order anyway), so
// concurrent batches of different replicas never deadlock, applies the ends' counter changes once per level, writes the usage rows, then decides
// each hold in order with one conditional `UPDATE … RETURNING` per level (organization: balance and
// cap; key, project, environment: cap). A level that refuses undoes the levels the hold already
// bumped and the hold answers with the counters it was refused against (for the 402's figures).
// pg-migrations.ts installs it at every start, after the schema.
import { USAGE_COLUMNS } from './pg-schema.js';

/** usage columns a batch writes, in jsonb_to_recordset's column definition form */
const USAGE_RECORD = USAGE_COLUMNS.replace(/ PRIMARY KEY| NOT NULL| DEFAULT 0/g, '');
const USAGE_NAMES = USAGE_RECORD.split(',').map((c) => c.trim().split(/\s+/)[0]!);

export const BATCH_FUNCTION = `
CREATE OR REPLACE FUNCTION gateway_batch(p jsonb) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  now_ms BIGINT := (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT;
  claimed jsonb;
  levels jsonb;
  h record;
  o_done BOOLEAN; k_done BOOLEAN; p_done BOOLEAN; e_done BOOLEAN; ok BOOLEAN;
  answers jsonb := '[]'::jsonb;
  refused jsonb;
  many BOOLEAN;
BEGIN
  IF jsonb_array_length(coalesce(p->'ends', '[]'::jsonb)) > 0 OR jsonb_array_length(coalesce(p->'sweep', '[]'::jsonb)) > 0 THEN
    WITH ends AS (SELECT DISTINCT x->>'id' AS id, (x->>'cost')::BIGINT AS cost FROM jsonb_array_elements(coalesce(p->'ends', '[]')) x),
    c AS (
      DELETE FROM reservations r USING ends e WHERE r.id = e.id
      RETURNING r.id, r.key_id, r.org, r.project, r.environment, r.amount, e.cost, false AS swept
    ),
    s AS (
      DELETE FROM reservations r
      WHERE r.boot_id IN (SELECT jsonb_array_elements_text(coalesce(p->'sweep', '[]')))
        AND (r.boot_id IN (SELECT jsonb_array_elements_text(coalesce(p->'gone', '[]')))
          OR NOT EXISTS (SELECT 1 FROM leases l WHERE l.owner = r.boot_id AND l.expires_at > now_ms))
      RETURNING r.id, r.key_id, r.org, r.project, r.environment, r.amount, 0::BIGINT AS cost, true AS swept
    )
    SELECT coalesce(jsonb_agg(to_jsonb(u)), '[]'::jsonb) INTO claimed FROM (SELECT * FROM c UNION ALL SELECT * FROM s) u;
    IF jsonb_array_length(coalesce(p->'sweep', '[]'::jsonb)) > 0 THEN
      DELETE FROM leases WHERE owner IN (SELECT jsonb_array_elements_text(p->'sweep'))
        AND (owner IN (SELECT jsonb_array_elements_text(coalesce(p->'gone', '[]'))) OR expires_at <= now_ms);
    END IF;
  ELSE
    claimed := '[]'::jsonb;
  END IF;

  -- one global lock order (organizations, keys, projects, environments; each sorted). With one row
  -- per level (the usual batch: one key) the updates below already take them in that order.
  levels := claimed || coalesce(p->'holds', '[]'::jsonb);
  SELECT count(DISTINCT x->>'org') > 1 OR count(DISTINCT x->>'key_id') > 1 OR count(DISTINCT (x->>'project', x->>'environment')) > 1
    INTO many FROM jsonb_array_elements(levels) x;
  IF many THEN
    PERFORM 1 FROM orgs WHERE id IN (SELECT x->>'org' FROM jsonb_array_elements(levels) x) ORDER BY id FOR UPDATE;
    PERFORM 1 FROM keys WHERE id IN (SELECT x->>'key_id' FROM jsonb_array_elements(levels) x) ORDER BY id FOR UPDATE;
    PERFORM 1 FROM projects WHERE (org, id) IN (SELECT x->>'org', x->>'project' FROM jsonb_array_elements(levels) x) ORDER BY org, id FOR UPDATE;
    PERFORM 1 FROM environments WHERE (org, project, id) IN (SELECT x->>'org', x->>'project', x->>'environment' FROM jsonb_array_elements(levels) x)
      ORDER BY org, project, id FOR UPDATE;
  END IF;

  IF jsonb_array_length(claimed) > 0 THEN
    UPDATE orgs o SET reserved = o.reserved - d.r, spent = o.spent + d.c, balance = o.balance - d.c
      FROM (SELECT x->>'org' AS org, sum((x->>'amount')::BIGINT)::BIGINT AS r, sum((x->>'cost')::BIGINT)::BIGINT AS c
            FROM jsonb_array_elements(claimed) x GROUP BY 1) d WHERE o.id = d.org;
    UPDATE keys k SET reserved = k.reserved - d.r, spent = k.spent + d.c
      FROM (SELECT x->>'key_id' AS id, sum((x->>'amount')::BIGINT)::BIGINT AS r, sum((x->>'cost')::BIGINT)::BIGINT AS c
            FROM jsonb_array_elements(claimed) x GROUP BY 1) d WHERE k.id = d.id;
    UPDATE projects t SET reserved = t.reserved - d.r, spent = t.spent + d.c
      FROM (SELECT x->>'org' AS org, x->>'project' AS id, sum((x->>'amount')::BIGINT)::BIGINT AS r, sum((x->>'cost')::BIGINT)::BIGINT AS c
            FROM jsonb_array_elements(claimed) x WHERE x->>'project' IS NOT NULL GROUP BY 1, 2) d WHERE t.org = d.org AND t.id = d.id;
    UPDATE environments t SET reserved = t.reserved - d.r, spent = t.spent + d.c
      FROM (SELECT x->>'org' AS org, x->>'project' AS project, x->>'environment' AS id, sum((x->>'amount')::BIGINT)::BIGINT AS r,
                   sum((x->>'cost')::BIGINT)::BIGINT AS c
            FROM jsonb_array_elements(claimed) x WHERE x->>'project' IS NOT NULL AND x->>'environment' IS NOT NULL GROUP BY 1, 2, 3) d
      WHERE t.org = d.org AND t.project = d.project AND t.id = d.id;
    INSERT INTO usage (${USAGE_NAMES.join(', ')})
      SELECT ${USAGE_NAMES.map((n) => `u.${n}`).join(', ')}
      FROM jsonb_to_recordset(coalesce(p->'usage', '[]'::jsonb)) AS u(reservation TEXT, ${USAGE_RECORD})
      WHERE u.reservation IN (SELECT x->>'id' FROM jsonb_array_elements(claimed) x WHERE NOT (x->>'swept')::BOOLEAN)
      ON CONFLICT (request_id) DO NOTHING;
  END IF;

  FOR h IN SELECT * FROM jsonb_to_recordset(coalesce(p->'holds', '[]'::jsonb))
      AS x(id TEXT, request_id TEXT, key_id TEXT, org TEXT, project TEXT, environment TEXT, amount BIGINT) LOOP
    k_done := false; p_done := false; e_done := false;
    UPDATE orgs SET reserved = reserved + h.amount
      WHERE id = h.org AND balance - reserved > 0 AND balance - reserved >= h.amount
        AND (spend_cap IS NULL OR spent + reserved + h.amount <= spend_cap)
      RETURNING true INTO o_done;
    ok := FOUND;
    o_done := ok;
    IF ok THEN
      UPDATE keys SET reserved = reserved + h.amount WHERE id = h.key_id AND (spend_cap IS NULL OR spent + reserved + h.amount <= spend_cap)
        RETURNING true INTO k_done;
      k_done := FOUND;
      ok := k_done OR NOT EXISTS (SELECT 1 FROM keys WHERE id = h.key_id);
    END IF;
    IF ok AND h.project IS NOT NULL THEN
      UPDATE projects SET reserved = reserved + h.amount
        WHERE org = h.org AND id = h.project AND (spend_cap IS NULL OR spent + reserved + h.amount <= spend_cap)
        RETURNING true INTO p_done;
      p_done := FOUND;
      ok := p_done OR NOT EXISTS (SELECT 1 FROM projects WHERE org = h.org AND id = h.project);
    END IF;
    IF ok AND h.project IS NOT NULL AND h.environment IS NOT NULL THEN
      UPDATE environments SET reserved = reserved + h.amount
        WHERE org = h.org AND project = h.project AND id = h.environment AND (spend_cap IS NULL OR spent + reserved + h.amount <= spend_cap)
        RETURNING true INTO e_done;
      e_done := FOUND;
      ok := e_done OR NOT EXISTS (SELECT 1 FROM environments WHERE org = h.org AND project = h.project AND id = h.environment);
    END IF;
    IF ok THEN
      INSERT INTO reservations (id, request_id, key_id, org, project, environment, amount, boot_id, created_at)
        VALUES (h.id, h.request_id, h.key_id, h.org, h.project, h.environment, h.amount, p->>'owner', now_ms);
      answers := answers || 'null'::jsonb;
    ELSE
      IF o_done THEN UPDATE orgs SET reserved = reserved - h.amount WHERE id = h.org; END IF;
      IF k_done THEN UPDATE keys SET reserved = reserved - h.amount WHERE id = h.key_id; END IF;
      IF p_done THEN UPDATE projects SET reserved = reserved - h.amount WHERE org = h.org AND id = h.project; END IF;
      SELECT to_jsonb(l) INTO refused FROM (
        SELECT o.balance, o.reserved AS o_reserved, o.spent AS o_spent, o.spend_cap AS o_cap,
          k.reserved AS k_reserved, k.spent AS k_spent, k.spend_cap AS k_cap,
          pr.reserved AS p_reserved, pr.spent AS p_spent, pr.spend_cap AS p_cap,
          e.reserved AS e_reserved, e.spent AS e_spent, e.spend_cap AS e_cap
        FROM orgs o
        LEFT JOIN keys k ON k.id = h.key_id
        LEFT JOIN projects pr ON pr.org = o.id AND pr.id = h.project
        LEFT JOIN environments e ON e.org = o.id AND e.project = h.project AND e.id = h.environment
        WHERE o.id = h.org) l;
      answers := answers || jsonb_build_array(coalesce(refused, '{}'::jsonb));
    END IF;
  END LOOP;

  IF jsonb_array_length(claimed) = 0 THEN
    RETURN jsonb_build_object('ended', '[]'::jsonb, 'swept', 0, 'holds', answers);
  END IF;
  RETURN jsonb_build_object(
    'ended', (SELECT coalesce(jsonb_agg(x->'id'), '[]'::jsonb) FROM jsonb_array_elements(claimed) x WHERE NOT (x->>'swept')::BOOLEAN),
    'swept', (SELECT count(*) FROM jsonb_array_elements(claimed) x WHERE (x->>'swept')::BOOLEAN),
    'holds', answers);
END
$fn$;
`;
