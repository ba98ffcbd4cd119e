// GET /v1/models: one list shape both official SDKs read (decisions §3). With `anthropic-version`
// the list holds the Anthropic family (the ids a Messages client may send), else the whole catalog.
// No provider call, no charge.
import type { ServerResponse } from 'node:http';
import type { CatalogModel } from '../catalog.js';
import { modelAllowed } from '../catalog.js';
import type { RequestContext } from '../context.js';
import { errors } from '../errors/index.js';
import { AUTO_MODEL } from '../../stages/route.js';

interface ModelEntry {
  id: string;
  object: 'model';
  type: 'model';
  display_name: string;
  created: number;
  created_at: string;
  owned_by: string;
}

function entry(m: CatalogModel): ModelEntry {
  return {
    id: m.id,
    object: 'model',
    type: 'model',
    display_name: m.displayName,
    created: Math.floor(m.created.getTime() / 1000),
    created_at: m.created.toISOString().replace('.000Z', 'Z'),
    owned_by: m.family,
  };
}

const AUTO_ENTRY: ModelEntry = {
  id: AUTO_MODEL,
  object: 'model',
  type: 'model',
  display_name: 'Gateway auto-router',
  created: 1767225600,
  created_at: '2026-01-01T00:00:00Z',
  owned_by: 'gateway',
};

function intParam(ctx: RequestContext, name: string, min: number, max: number): number | undefined {
  const all = ctx.query.getAll(name);
  if (all.length === 0) return undefined;
  if (all.length > 1 || !/^\d+$/.test(all[0]!) || Number(all[0]) < min || Number(all[0]) > max) {
    throw errors.modelsQueryInteger(name, min, max);
  }
  return Number(all[0]);
}

export function listModels(ctx: RequestContext, res: ServerResponse): void {
  const anthropic = ctx.dialect === 'anthropic';
  for (const name of ctx.query.keys()) {
    // Codex asks `<base_url>/models?client_version=<its version>` (FAILURE-MODES F69): accepted and
    // ignored, so it gets the list rather than a 400 (it then keeps its bundled catalog)
    if (!['limit', 'after_id', 'before_id', 'client_version'].includes(name)) {
      throw errors.modelsQueryUnknown(name);
    }
  }
  const limit = intParam(ctx, 'limit', 1, 1000) ?? (anthropic ? 20 : 1000);
  const allow = ctx.key?.models ?? [];
  let list = ctx.services.catalog.models.filter((m) => m.text || !anthropic).filter((m) => (anthropic ? m.family === 'anthropic' : true)).filter((m) => modelAllowed(allow, m.id)).map(entry);
  if (!anthropic) list = [AUTO_ENTRY, ...list];
  const after = ctx.query.get('after_id');
  const before = ctx.query.get('before_id');
  if (after !== null) list = list.slice(list.findIndex((m) => m.id === after) + 1);
  if (before !== null) {
    const i = list.findIndex((m) => m.id === before);
    list = i >= 0 ? list.slice(Math.max(0, i - limit), i) : [];
  }
  const page = list.slice(0, limit);
  const body = JSON.stringify({
    object: 'list',
    data: page,
    has_more: list.length > page.length,
    first_id: page[0]?.id ?? null,
    last_id: page[page.length - 1]?.id ?? null,
  });
  res.writeHead(200, { ...ctx.responseHeaders, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}
