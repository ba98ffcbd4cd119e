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
        if (contentType !== undefined) throw errors.messagesContentTypeRepeated();
        contentType = value;
        break;
      case 'anthropic-version':
        if (version !== undefined) throw errors.messagesHeaderRepeated(name);
        version = value;
        break;
      case 'anthropic-beta':
        if (beta !== undefined) throw errors.betaHeaderRepeated();
        beta = value;
        break;
      case 'x-claude-code-session-id':
        if (session !== undefined) throw errors.messagesHeaderRepeated(name);
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
  if (version === undefined) throw errors.versionMissing(accepted, BASE_VERSION);
  if (!accepted.includes(version)) {
    // a well-formed date is a version the operator can accept; anything else the config cannot fix
    throw errors.versionNotAccepted(shorten(version), accepted, BASE_VERSION, VERSION_DATE.test(version) ? version : undefined);
  }

  let sessionId: string | undefined;
  if (session !== undefined) {
    if (session.length === 0 || session.length > SESSION_MAX) {
      throw errors.sessionIdLength(SESSION_MAX, session.length);
    }
    sessionId = session;
  }

  return { version, betas: beta === undefined ? [] : parseBetas(beta), sessionId, forward };
}

function checkContentType(value: string | undefined): void {
  if (value === undefined) throw errors.messagesContentTypeMissing();
  const semi = value.indexOf(';');
  const type = (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
  if (type !== 'application/json') {
    throw errors.messagesContentTypeNotJson(shorten(value));
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
    if (id === '') throw errors.betaItemEmpty(i + 1);
    if (!BETA_ID.test(id)) throw errors.betaItemInvalid(i + 1);
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
