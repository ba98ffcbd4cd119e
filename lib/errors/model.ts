// Which model serves a request: unknown models, `gateway-auto` routing, what a model cannot do.
import { defineError } from '../errors.js';

const AUTO = 'gateway-auto';

/** " Close matches: a, b." when the catalog found any */
function closeNote(close: readonly string[]): string {
  return close.length ? ` Close matches: ${close.join(', ')}.` : '';
}

/** " Models that transcribe: a, b." when the catalog has any */
function transcribersNote(ids: readonly string[]): string {
  return ids.length ? ` Models that transcribe: ${ids.join(', ')}.` : '';
}

/** `needs`: what no candidate met ("image input", "tool use"); `fields`: where each is configured */
function autoUnmet(needs: readonly string[], fields: string): string {
  return needs.length
    ? `model: no model available to "${AUTO}" meets this request's needs (${needs.join(', ')}). "${AUTO}" chooses among \`router.candidates\` in the gateway config; what each candidate offers is ${fields} there.`
    : `model: no model available to "${AUTO}" meets this request's needs (no candidates configured). Its candidates are \`router.candidates\` in the gateway config.`;
}

export const modelErrors = {
  modelUnknown: defineError('GW_ERR_MODEL_UNKNOWN', (model: string, close: readonly string[]) => `model: unknown model "${model}".${closeNote(close)} GET /v1/models lists every available id.`, { param: 'model' }),
  modelNotText: defineError('GW_ERR_MODEL_UNKNOWN', (model: string) => `model: "${model}" is not a text model (it serves transcriptions only: every one of its \`models[].deployments[].api\` in the gateway config is "transcriptions").`, { param: 'model' }),
  modalityUnsupported: defineError('GW_ERR_MODALITY_UNSUPPORTED', (model: string, modality: string) => `model: "${model}" does not accept ${modality} input. Remove the ${modality} content or pick a model that accepts it (the input a model accepts is \`models[].input\` in the gateway config).`, { param: 'model' }),
  autoNoModel: defineError('GW_ERR_MODEL_UNKNOWN', autoUnmet, { param: 'model' }),
  /** every unmet need was an input modality */
  autoNoModelForInput: defineError('GW_ERR_MODALITY_UNSUPPORTED', autoUnmet, { param: 'model' }),
  autoSignedThinking: defineError('GW_ERR_REQUEST_INVALID', () => `model: "${AUTO}" cannot continue a conversation that replays signed thinking or redacted_thinking blocks: their signatures are bound to the model that produced them. Pin one explicit model for the whole conversation.`, { param: 'model' }),
  thinkingBudgetNoRoom: defineError('GW_ERR_REQUEST_INVALID', (model: string, maxTokens: number, minBudget: number) => `thinking.budget_tokens: model "${model}" allows at most ${maxTokens} output tokens, which leaves no room for the minimum thinking budget of ${minBudget} (the limit is \`models[].maxOutputTokens\` in the gateway config). Raise max_tokens or lower the thinking budget.`, { param: 'thinking.budget_tokens' }),
  /** the served model's deployment speaks an API this endpoint has no encoder for */
  apiUnreachable: defineError('GW_ERR_CAPABILITY_REJECTED', (model: string, api: string) => `capability_rejected: model: model "${model}" is served through the ${api} API, which this endpoint cannot reach yet (\`models[].deployments[].api\` in the gateway config). Pin another model or use another endpoint.`, { param: 'model' }),
  countTokensUnavailable: defineError('GW_ERR_COUNT_TOKENS_UNAVAILABLE', (model: string) => `Token counting is not available on this gateway for model ${model}: no authoritative count exists, and a guessed count would mislead. The request is valid; nothing was counted, no provider was called and nothing was charged. Estimate locally, or send the request to /v1/messages and read usage.input_tokens.`),
  // transcriptions: `transcribers` lists the catalog's models that can transcribe
  transcriptionDefaultMissing: defineError('GW_ERR_MODEL_UNKNOWN', (transcribers: readonly string[]) => `model: no default transcription model is configured (\`transcription.defaultModel\` in the gateway config); name a catalog model that accepts audio.${transcribersNote(transcribers)}`, { param: 'model' }),
  transcriptionModelUnknown: defineError('GW_ERR_MODEL_UNKNOWN', (model: string, close: readonly string[], transcribers: readonly string[]) => `model: unknown model "${model}".${closeNote(close)}${transcribersNote(transcribers)} GET /v1/models lists every available id.`, { param: 'model' }),
  modelNotAudio: defineError('GW_ERR_MODEL_UNKNOWN', (model: string, transcribers: readonly string[]) => `model: "${model}" does not accept audio input, so it cannot transcribe (the input a model accepts is \`models[].input\` in the gateway config).${transcribersNote(transcribers)}`, { param: 'model' }),
  modelNoTranscriptionDeployment: defineError('GW_ERR_MODEL_UNKNOWN', (model: string, transcribers: readonly string[]) => `model: "${model}" accepts audio but has no transcriptions deployment (a deployment with "api": "transcriptions" on an openai provider, in \`models[].deployments\` of the gateway config).${transcribersNote(transcribers)}`, { param: 'model' }),
};
