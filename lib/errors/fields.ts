// Body fields a dialect refuses beyond its schema checks (the generic ones are `invalid(path, problem)`
// and `capabilityRejected(path, problem)` in lib/errors.ts): unsupported parameters, labels, the
// transcription form.
import { defineError } from '../errors.js';

function labelsExample(name: string): string {
  return `for example ${name}={"call_name": "summarize", "end_user_id": "user-42"}`;
}

export const fieldErrors = {
  /** a parameter this gateway does not support ("<param>: <problem>") */
  paramUnsupported: defineError('GW_ERR_PARAM_UNSUPPORTED', (param: string, problem: string) => `${param}: ${problem}`, (param) => ({ param })),
  /** a Responses `input` item ("<path>: <problem>"); `param` is always `input` */
  inputItemInvalid: defineError('GW_ERR_REQUEST_INVALID', (path: string, problem: string) => `${path}: ${problem}`, { param: 'input' }),
  responsesAudioInput: defineError('GW_ERR_PARAM_UNSUPPORTED', (path: string) => `${path}: audio input is not supported on the Responses endpoint. Remove the input_audio part, or transcribe it with POST /v1/audio/transcriptions first`, { param: 'input' }),
  /** `call_name` label ("<path>: <problem>") */
  callNameInvalid: defineError('GW_ERR_CALL_NAME_INVALID', (path: string, problem: string) => `${path}: ${problem}`, (path) => ({ param: path })),
  /** `end_user_id` label ("<path>: <problem>") */
  endUserIdInvalid: defineError('GW_ERR_END_USER_ID_INVALID', (path: string, problem: string) => `${path}: ${problem}`, (path) => ({ param: path })),
  // the `gateway` / `metadata` form fields of a transcription
  labelsNotJson: defineError('GW_ERR_REQUEST_INVALID', (name: string, why: string) => `${name}: must be a JSON object string (${labelsExample(name)}); it is not valid JSON: ${why}`, (name) => ({ param: name })),
  /** `got`: what the JSON was instead ("an array", "null") */
  labelsNotObject: defineError('GW_ERR_REQUEST_INVALID', (name: string, got: string) => `${name}: must be a JSON object string (${labelsExample(name)}); got ${got}.`, (name) => ({ param: name })),
  gatewayKeyUnknown: defineError(
    'GW_ERR_REQUEST_INVALID',
    (key: string, accepted: readonly string[], reserved: readonly string[]) => `gateway.${key}: unknown key. The gateway object accepts ${accepted.join(' and ')} (and the reserved keys ${reserved.join(', ')}, which are ignored).`,
    (key) => ({ param: `gateway.${key}` }),
  ),
  /** a multipart form field rule ("<name>: <problem>"; unlike `invalid`, an empty name is kept as is) */
  formFieldInvalid: defineError('GW_ERR_REQUEST_INVALID', (name: string, problem: string) => `${name}: ${problem}`, (name) => ({ param: name })),
  transcriptionModelEmpty: defineError('GW_ERR_MODEL_UNKNOWN', () => 'model: must not be empty; omit it (or send "gateway-auto") to use the default transcription model.', { param: 'model' }),
  transcriptionFormatUnsupported: defineError('GW_ERR_RESPONSE_FORMAT_UNSUPPORTED', (value: string) => `response_format: "${value}" is not supported; use "json" (the default) or "text".`, { param: 'response_format' }),
  transcriptionStreamUnsupported: defineError('GW_ERR_PARAM_UNSUPPORTED', () => 'stream: streamed transcriptions are not supported; omit `stream` (or send false) to receive the whole transcript.', { param: 'stream' }),
  transcriptionFieldUnsupported: defineError('GW_ERR_PARAM_UNSUPPORTED', (name: string) => `${name}: not supported by this gateway; remove it.`, (name) => ({ param: name })),
  /** the uploaded file's extension (lower case, no dot; '' when none) is not one the endpoint accepts */
  fileFormatUnsupported: defineError('GW_ERR_FILE_FORMAT_INVALID', (field: string, extension: string, filename: string, supported: readonly string[]) => `${field}: unsupported file format (extension ${extension ? `".${extension}"` : 'none'} in "${filename}"); supported: ${supported.join(', ')}.`, (field) => ({ param: field })),
  audioFormatUnsupported: defineError('GW_ERR_FILE_FORMAT_INVALID', (extension: string) => `file: unsupported file format ".${extension}".`, { param: 'file' }),
  /** `limit` as the message shows it ("25 MiB") */
  fileTooLarge: defineError('GW_ERR_FILE_TOO_LARGE', (field: string, limit: string) => `${field}: the file is larger than the limit of ${limit}.`, (field) => ({ param: field })),
};
