// Top-level fields around the conversation: metadata, diagnostics, safeguards, context_management,
// and the spec's "Unsupported (rejected)" fields (container, inference_geo, mcp_servers).
import { capabilityRejected, invalid } from '../../errors.js';
import type { JsonObject, JsonValue } from '../../chunks.js';
import { BETA, requireBeta } from './betas.js';
import { arr, fields, isObject, kind, obj, rejectUnknown, shorten, str, typedObject, type Scan } from './validate-util.js';

const METADATA = fields('user_id');
const DIAGNOSTICS = fields('previous_message_id');
const CONTEXT_MANAGEMENT = fields('edits');
export const CONTEXT_EDITS: ReadonlySet<string> = new Set(['clear_thinking_20251015', 'clear_tool_uses_20250919']);

/** `container`, `inference_geo`, non-empty `mcp_servers`: 400 capability_rejected at their path. */
export function rejectUnsupported(body: JsonObject): void {
  const c = body.container;
  if (c !== undefined && c !== null && c !== '' && !(isObject(c) && Object.keys(c).length === 0)) {
    throw capabilityRejected(
      'container',
      'containers are not implemented by this gateway (no hosted code-execution state is kept). Remove the field',
    );
  }
  if (body.inference_geo !== undefined) {
    throw capabilityRejected(
      'inference_geo',
      'choosing the inference region is not supported. Remove the field (the gateway picks the deployment)',
    );
  }
  if (body.mcp_servers !== undefined) {
    const list = arr(body.mcp_servers, 'mcp_servers');
    if (list.length > 0) {
      throw capabilityRejected(
        'mcp_servers',
        'remote MCP servers (the MCP connector) are not supported. Remove the field, or run MCP tools on the client and declare them as custom tools',
      );
    }
  }
}

/** `metadata`: only `user_id` (string or null). Returns the user id when it is a non-empty string. */
export function validateMetadata(v: JsonValue): string | undefined {
  const m = obj(v, 'metadata');
  rejectUnknown(m, METADATA, 'metadata');
  const id = m.user_id;
  if (id === undefined || id === null) return undefined;
  if (typeof id !== 'string') throw invalid('metadata.user_id', `must be a string or null, got ${kind(id)}`);
  return id === '' ? undefined : id;
}

/** `diagnostics` (beta `cache-diagnosis-2026-04-07`): `{previous_message_id: null | string 1..256}`. */
export function validateDiagnostics(v: JsonValue, scan: Scan): void {
  requireBeta(scan.betas, BETA.cacheDiagnosis, 'diagnostics', 'this field');
  const d = obj(v, 'diagnostics');
  rejectUnknown(d, DIAGNOSTICS, 'diagnostics');
  const id = d.previous_message_id;
  if (id === undefined) throw invalid('diagnostics.previous_message_id', 'required field is missing (null on a first turn)');
  if (id !== null) str(id, 'diagnostics.previous_message_id', 1, 256);
}

/** `safeguards` (beta `dangerous-tool-use-2026-09-03`): objects with a non-empty `type`, open inside. */
export function validateSafeguards(v: JsonValue, scan: Scan): void {
  requireBeta(scan.betas, BETA.dangerousToolUse, 'safeguards', 'this field');
  const list = arr(v, 'safeguards');
  for (let i = 0; i < list.length; i++) typedObject(list[i], `safeguards[${i}]`);
}

/**
 * `context_management`: supported edits are accepted with their options as open JSON; any other
 * edit type (server-side compaction included) is 400 capability_rejected at `edits[i].type`.
 */
export function validateContextManagement(v: JsonValue): void {
  const cm = obj(v, 'context_management');
  rejectUnknown(cm, CONTEXT_MANAGEMENT, 'context_management');
  if (cm.edits === undefined) return;
  const edits = arr(cm.edits, 'context_management.edits');
  for (let i = 0; i < edits.length; i++) {
    const path = `context_management.edits[${i}]`;
    const type = str(obj(edits[i], path).type, `${path}.type`, 1);
    if (!CONTEXT_EDITS.has(type)) {
      throw capabilityRejected(
        `${path}.type`,
        `context edit "${shorten(type)}" is not supported (server-side compaction is not available). ` +
          `Remove the edit; supported edits: ${[...CONTEXT_EDITS].join(', ')}`,
      );
    }
  }
}
