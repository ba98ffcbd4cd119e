// Who may call: the credential, the key's endpoint scopes and its model allowlist (401 and 403).
import { defineError } from '../errors.js';

/** which `keys[]` entry to change, for messages that send the operator to the config: only the caller's own key id */
function keyNote(keyId: string | undefined): string {
  return keyId !== undefined ? ` (key id "${keyId}")` : '';
}

export const authErrors = {
  authHeaderRepeated: defineError('GW_ERR_AUTH_CONFLICT', () => 'The credential header appears more than once; send the API key exactly once, in `x-api-key` or `Authorization: Bearer`.'),
  authBearerMalformed: defineError('GW_ERR_AUTH_INVALID', () => 'The Authorization header must have the form `Bearer <API key>`.'),
  authKeysDiffer: defineError('GW_ERR_AUTH_CONFLICT', () => 'The `x-api-key` and `Authorization` headers hold different keys; send one key, or the same key in both.'),
  authMissing: defineError('GW_ERR_AUTH_MISSING', () => 'No API key: send it in `x-api-key` or `Authorization: Bearer <API key>`.'),
  authInvalid: defineError('GW_ERR_AUTH_INVALID', () => 'Invalid API key.'),
  /** chat, messages, responses and transcriptions alike; keyId undefined when no key is known */
  modelNotAllowed: defineError('GW_ERR_MODEL_NOT_ALLOWED', (model: string, keyId: string | undefined) => `model: this API key may not use model "${model}". The models a key may use are \`keys[].models\` in the gateway config${keyNote(keyId)}.`, { param: 'model' }),
  scopeDenied: defineError('GW_ERR_SCOPE_DENIED', (scope: string, keyId: string | undefined) => `This API key is not allowed to use the ${scope} endpoint (its endpoint allowlist excludes "${scope}"). The endpoints a key may use are \`keys[].scopes\` in the gateway config${keyNote(keyId)}.`),
};
