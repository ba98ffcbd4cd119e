// The text fields of a transcription form, validated. `checkField` judges one field on its own (the
// multipart stage calls it as each field arrives, so a bad field refuses the upload before the rest
// of the file is read); `parseTranscriptionFields` judges the whole form once it has been read.
//
// Fields: model, language (ISO-639-1, lower case), prompt, temperature (0 to 1), response_format
// (json or text), stream (only "false"), the legacy call_name, gateway and metadata (JSON-object
// strings, see labels.ts), and timestamp_granularities[] (accepted and ignored: it only shapes
// verbose_json, which is not offered). Each appears at most once. OpenAI fields this gateway does not
// implement are 400 unsupported_parameter; any other field is 400 invalid_request.
import type { JsonObject } from '../../chunks.js';
import { errors } from '../../errors/index.js';
import { ISO_639_1 } from './iso639.js';
import { parseObjectField, resolveLabels, type Labels } from './labels.js';

export type ResponseFormat = 'json' | 'text';

export interface FormField {
  name: string;
  value: string;
}

export interface TranscriptionFields {
  /** the model value as written; null when omitted */
  model: string | null;
  language: string | null;
  prompt: string | null;
  temperature: number | null;
  responseFormat: ResponseFormat;
  labels: Labels;
}

const SINGLE = ['model', 'language', 'prompt', 'temperature', 'response_format', 'stream', 'call_name', 'gateway', 'metadata'] as const;
type SingleField = (typeof SINGLE)[number];
const IGNORED: ReadonlySet<string> = new Set(['timestamp_granularities[]', 'timestamp_granularities']);
const UNSUPPORTED: ReadonlySet<string> = new Set(['chunking_strategy', 'include[]', 'include', 'known_speaker_names[]', 'known_speaker_references[]']);
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function isSingle(name: string): name is SingleField {
  return (SINGLE as readonly string[]).includes(name);
}

export function parseModelField(value: string): string {
  if (value.trim() === '') {
    throw errors.transcriptionModelEmpty();
  }
  return value;
}

export function parseLanguage(value: string): string {
  if (!ISO_639_1.has(value)) {
    const hint = ISO_639_1.has(value.toLowerCase()) ? ` Write it in lower case: "${value.toLowerCase()}".` : '';
    throw errors.formFieldInvalid('language', `"${value}" is not an ISO-639-1 language code (two lower-case letters, such as "en" or "de").${hint}`);
  }
  return value;
}

export function parseTemperature(value: string): number {
  const n = NUMBER.test(value) ? Number(value) : NaN;
  if (!(n >= 0 && n <= 1)) throw errors.formFieldInvalid('temperature', `must be a number from 0 to 1, got "${value}".`);
  return n;
}

export function parseResponseFormat(value: string): ResponseFormat {
  if (value === 'json' || value === 'text') return value;
  throw errors.transcriptionFormatUnsupported(value);
}

function parseStream(value: string): void {
  if (value === 'false') return;
  if (value === 'true') {
    throw errors.transcriptionStreamUnsupported();
  }
  throw errors.formFieldInvalid('stream', `must be "true" or "false", got "${value}".`);
}

/** Judge one field on its own; throws the GatewayError the whole request fails with. */
export function checkField(field: FormField): void {
  const { name, value } = field;
  switch (name) {
    case 'model':
      parseModelField(value);
      return;
    case 'language':
      parseLanguage(value);
      return;
    case 'temperature':
      parseTemperature(value);
      return;
    case 'response_format':
      parseResponseFormat(value);
      return;
    case 'stream':
      parseStream(value);
      return;
    case 'gateway':
    case 'metadata':
      parseObjectField(name, value);
      return;
    case 'prompt':
    case 'call_name':
      return;
    default:
      if (IGNORED.has(name)) return;
      if (UNSUPPORTED.has(name)) throw errors.transcriptionFieldUnsupported(name);
      throw errors.formFieldInvalid(name, `unknown field. The transcription form accepts file, ${SINGLE.join(', ')} and timestamp_granularities[].`);
  }
}

/** The whole form: every field checked, each at most once, and the labels resolved. */
export function parseTranscriptionFields(fields: readonly FormField[]): TranscriptionFields {
  const seen = new Map<SingleField, string>();
  for (const field of fields) {
    checkField(field);
    if (!isSingle(field.name)) continue;
    if (seen.has(field.name)) throw errors.formFieldInvalid(field.name, 'given more than once; send each field once.');
    seen.set(field.name, field.value);
  }
  const get = (name: SingleField): string | null => seen.get(name) ?? null;
  const text = (name: SingleField, parse: (v: string) => string): string | null => {
    const v = get(name);
    return v === null ? null : parse(v);
  };
  const temperature = get('temperature');
  const gatewayText = get('gateway');
  const metadataText = get('metadata');
  const gateway: JsonObject | null = gatewayText === null ? null : parseObjectField('gateway', gatewayText);
  const metadata: JsonObject | null = metadataText === null ? null : parseObjectField('metadata', metadataText);
  return {
    model: text('model', parseModelField),
    language: text('language', parseLanguage),
    prompt: get('prompt'),
    temperature: temperature === null ? null : parseTemperature(temperature),
    responseFormat: parseResponseFormat(get('response_format') ?? 'json'),
    labels: resolveLabels(gateway, metadata, get('call_name')),
  };
}
