// Header and query rules of `POST /v1/messages` and `/v1/messages/count_tokens`, checked on Node's
// raw header list so duplicated singleton headers are seen (req.headers joins or drops them).
import { errors } from '../../errors/index.js';
import { shorten } from './validate-util.js';

export const BASE_VERSION = '2023-06-01';

export interface MessagesHeaderInfo {
  /** the accepted `anthropic-version` value the client sent */
  version: string;
  /** `anthropic-beta` ids, trimmed, in order, first occurrence kept */
  betas: string[];
  /** trimmed `x-claude-code-session-id` */
  sessionId: string | undefined;
  /** other `anthropic-*` headers, lower-case names (not `anthropic-version` / `anthropic-beta`) */
  forward: Record<string, string>;
}

const SESSION_MAX = 256;
/** a beta id: visible ASCII, no separators that would change the list's meaning */
const BETA_ID = /^[\x21-\x2b\x2d-\x7e]+$/;
/** the form `anthropicVersions` entries take (lib/config.schema.json) */
const VERSION_DATE = /^\d{4}-\d{2}-\d{2}$/;

function versionGuidance(accepted: readonly string[]): string {
  const list = accepted.map((v) => `\`${v}\``).join(', ');
  return (
    `Accepted values: ${list}. Set the request header \`anthropic-version: ${BASE_VERSION}\` ` +
    `(the Anthropic SDKs and Claude Code send it themselves; with curl add \`-H 'anthropic-version: ${BASE_VERSION}'\`).`
  );
}

/**
 * rawHeaders is Node's req.rawHeaders ([name, value, ...]); acceptedVersions from config
 * ('2023-06-01' always included). Throws GatewayError.
 */
export function validateMessagesHeaders(
  rawHeaders: readonly string[],
  acceptedVersions: readonly string[],
  opts: { requireContentType: boolean },
): MessagesHeaderInfo {
  let contentType: string | undefined;
  let version: string | undefined;
  let beta: string | undefined;
  let session: string | undefined;
  const forward: Record<string, string> = {};

  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    const value = (rawHeaders[i + 1] as string).trim();
    switch (name) {
      case 'content-type':
        if (contentType !== undefined) throw errors.contentTypeInvalid('the header appears more than once; send it exactly once');
        contentType = value;
        break;
      case 'anthropic-version':
        if (version !== undefined) throw errors.headerInvalid(name, 'the header appears more than once; send it exactly once');
        version = value;
        break;
      case 'anthropic-beta':
        if (beta !== undefined) {
          throw errors.headerInvalid(name, 'the header appears more than once; send one header with a comma-separated list of beta ids');
        }
        beta = value;
        break;
      case 'x-claude-code-session-id':
        if (session !== undefined) throw errors.headerInvalid(name, 'the header appears more than once; send it exactly once');
        session = value;
        break;
      default:
        if (name.startsWith('anthropic-')) {
          forward[name] = Object.hasOwn(forward, name) ? `${forward[name]}, ${value}` : value;
        }
    }
  }

  if (opts.requireContentType) checkContentType(contentType);

  const accepted = acceptedVersions.includes(BASE_VERSION) ? acceptedVersions : [BASE_VERSION, ...acceptedVersions];
  if (version === undefined) {
    throw errors.headerInvalid('anthropic-version', `the header is required. ${versionGuidance(accepted)}`);
  }
  if (!accepted.includes(version)) {
    // a well-formed date is a version the operator can accept; anything else the config cannot fix
    const fix = VERSION_DATE.test(version) ? ` To accept it, the gateway operator adds "${version}" to \`anthropicVersions\` in the gateway config.` : '';
    throw errors.headerInvalid('anthropic-version', `\`${shorten(version)}\` is not an accepted version. ${versionGuidance(accepted)}${fix}`);
  }

  let sessionId: string | undefined;
  if (session !== undefined) {
    if (session.length === 0 || session.length > SESSION_MAX) {
      throw errors.headerInvalid('x-claude-code-session-id', `must be 1 to ${SESSION_MAX} characters after trimming, got ${session.length}`);
    }
    sessionId = session;
  }

  return { version, betas: beta === undefined ? [] : parseBetas(beta), sessionId, forward };
}

function checkContentType(value: string | undefined): void {
  if (value === undefined) {
    throw errors.contentTypeInvalid('the header is required; send `content-type: application/json`');
  }
  const semi = value.indexOf(';');
  const type = (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
  if (type !== 'application/json') {
    throw errors.contentTypeInvalid(
      `must be \`application/json\` (parameters such as \`; charset=utf-8\` are allowed), got \`${shorten(value)}\``,
    );
  }
}

/**
 * `a, b,c` → ['a', 'b', 'c']; duplicates keep their first position. A wholly empty header means no
 * betas; an empty item inside a list (`a,,b`, `a,`) is an error.
 */
function parseBetas(value: string): string[] {
  if (value === '') return [];
  const out: string[] = [];
  const seen = new Set<string>();
  const items = value.split(',');
  for (let i = 0; i < items.length; i++) {
    const id = (items[i] as string).trim();
    if (id === '') throw errors.headerInvalid('anthropic-beta', `item ${i + 1} is empty; send comma-separated, non-empty beta ids`);
    if (!BETA_ID.test(id)) {
      throw errors.headerInvalid('anthropic-beta', `item ${i + 1} is not a valid beta id (visible ASCII without spaces or commas)`);
    }
    if (!seen.has(id)) {
      seen.add(id);
      out.push(id);
    }
  }
  return out;
}

/** query rule of /v1/messages and count_tokens: `beta` at most once and equal to `true`; any other parameter rejected */
export function validateMessagesQuery(query: URLSearchParams): void {
  let betaSeen = false;
  for (const [name, value] of query) {
    if (name !== 'beta') {
      const shown = shorten(name);
      throw errors.messagesQueryUnknown(shown);
    }
    if (betaSeen) {
      throw errors.messagesBetaRepeated();
    }
    if (value !== 'true') {
      throw errors.messagesBetaNotTrue();
    }
    betaSeen = true;
  }
}
