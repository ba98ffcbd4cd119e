// Request headers: the content type each endpoint takes, and the Messages headers (`anthropic-version`,
// `anthropic-beta`, `x-claude-code-session-id`). Messages and OpenAI-style endpoints word the
// content-type rules differently (each as its SDKs' users expect), so each has its own definitions.
import { defineError } from '../errors.js';

const CT = { param: 'content-type' };

/** the accepted versions and how to send one; `base` is the version the SDKs send, always accepted */
function versionGuidance(accepted: readonly string[], base: string): string {
  const list = accepted.map((v) => `\`${v}\``).join(', ');
  return (
    `Accepted values: ${list}. Set the request header \`anthropic-version: ${base}\` ` +
    `(the Anthropic SDKs and Claude Code send it themselves; with curl add \`-H 'anthropic-version: ${base}'\`).`
  );
}

export const headerErrors = {
  // Chat Completions and Responses
  contentTypeRepeated: defineError('GW_ERR_CONTENT_TYPE_INVALID', () => 'content-type: the header appears more than once; send it exactly once.', CT),
  contentTypeMissing: defineError('GW_ERR_CONTENT_TYPE_INVALID', () => 'content-type: missing; send `Content-Type: application/json`.', CT),
  contentTypeNotJson: defineError('GW_ERR_CONTENT_TYPE_INVALID', (value: string) => `content-type: "${value}" is not accepted; send \`Content-Type: application/json\`.`, CT),
  // transcriptions
  contentTypeNotMultipart: defineError('GW_ERR_CONTENT_TYPE_INVALID', (value: string | undefined) => `Content-Type must be multipart/form-data (with a boundary), got ${value === undefined ? 'none' : `"${value}"`}.`),
  // Messages; `shown` values are shortened by the caller
  messagesContentTypeRepeated: defineError('GW_ERR_CONTENT_TYPE_INVALID', () => 'content-type: the header appears more than once; send it exactly once', CT),
  messagesContentTypeMissing: defineError('GW_ERR_CONTENT_TYPE_INVALID', () => 'content-type: the header is required; send `content-type: application/json`', CT),
  messagesContentTypeNotJson: defineError('GW_ERR_CONTENT_TYPE_INVALID', (shown: string) => `content-type: must be \`application/json\` (parameters such as \`; charset=utf-8\` are allowed), got \`${shown}\``, CT),
  /** `anthropic-version` or `x-claude-code-session-id` sent twice */
  messagesHeaderRepeated: defineError('GW_ERR_HEADER_INVALID', (name: string) => `${name}: the header appears more than once; send it exactly once`, (name) => ({ param: name })),
  versionMissing: defineError('GW_ERR_HEADER_INVALID', (accepted: readonly string[], base: string) => `anthropic-version: the header is required. ${versionGuidance(accepted, base)}`, { param: 'anthropic-version' }),
  /** `addable`: the version itself when the operator could accept it (a well-formed date), else undefined */
  versionNotAccepted: defineError(
    'GW_ERR_HEADER_INVALID',
    (shown: string, accepted: readonly string[], base: string, addable: string | undefined) =>
      `anthropic-version: \`${shown}\` is not an accepted version. ${versionGuidance(accepted, base)}${addable === undefined ? '' : ` To accept it, the gateway operator adds "${addable}" to \`anthropicVersions\` in the gateway config.`}`,
    { param: 'anthropic-version' },
  ),
  betaHeaderRepeated: defineError('GW_ERR_HEADER_INVALID', () => 'anthropic-beta: the header appears more than once; send one header with a comma-separated list of beta ids', { param: 'anthropic-beta' }),
  /** `item`: its 1-based position in the comma-separated list */
  betaItemEmpty: defineError('GW_ERR_HEADER_INVALID', (item: number) => `anthropic-beta: item ${item} is empty; send comma-separated, non-empty beta ids`, { param: 'anthropic-beta' }),
  betaItemInvalid: defineError('GW_ERR_HEADER_INVALID', (item: number) => `anthropic-beta: item ${item} is not a valid beta id (visible ASCII without spaces or commas)`, { param: 'anthropic-beta' }),
  sessionIdLength: defineError('GW_ERR_HEADER_INVALID', (max: number, got: number) => `x-claude-code-session-id: must be 1 to ${max} characters after trimming, got ${got}`, { param: 'x-claude-code-session-id' }),
};
