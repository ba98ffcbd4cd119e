// Validation of a `POST /v1/messages` (and count_tokens) body, before any provider work: one walk
// over the parsed body, hand-written checks, no copy. Every failure is a GatewayError naming the
// exact path (`messages[3].content[0].type`); unsupported capabilities start `capability_rejected:`.
// The result is the CanonicalRequest whose `body` is the input object itself.
import { capabilityRejected, invalid } from '../../errors.js';
import type { CanonicalRequest, JsonObject, JsonValue, RequestNeeds } from '../../chunks.js';
import { BETA, requireBeta } from './betas.js';
import type { MessagesHeaderInfo } from './headers.js';
import { validateSystem } from './validate-blocks.js';
import {
  rejectUnsupported, validateContextManagement, validateDiagnostics, validateMetadata, validateSafeguards,
} from './validate-extras.js';
import type { HostedToolOptions } from './validate-hosted-tools.js';
import { validateMessages } from './validate-messages.js';
import { openGatewaySearches } from './replay-search.js';
import { createSealer, type Sealer } from '../../search/seal.js';
import { checkForcedToolUse, validateOutputConfig, validateThinking } from './validate-thinking.js';
import { validateToolChoice, validateTools } from './validate-tools.js';
import {
  arr, bool, cacheControl, fields, int, isObject, kind, newScan, num, oneOf, rejectUnknown, str,
} from './validate-util.js';

export interface ValidateOptions extends HostedToolOptions {
  /** beta ids of the request (`anthropic-beta`): they unlock gated body fields */
  betas: readonly string[];
  /** count_tokens: no max_tokens needed, body is {model, messages, system?, tools?, tool_choice?, thinking?, ...} */
  countTokens?: boolean;
  /** opens the web-search blocks the gateway sealed, sent back as history (replay-search.ts); absent: the process key */
  sealer?: Sealer;
}

const TOP_LEVEL = fields(
  'model', 'max_tokens', 'messages', 'system', 'stream', 'temperature', 'top_p', 'top_k', 'stop_sequences', 'tools',
  'tool_choice', 'thinking', 'output_config', 'cache_control', 'context_management', 'diagnostics', 'metadata',
  'service_tier', 'speed', 'safeguards', 'container', 'inference_geo', 'mcp_servers',
);
const MAX_STOP_SEQUENCES = 4;
/** Deliberate over-estimate: at most one token per two UTF-8 bytes, plus a per-message overhead. */
const BYTES_PER_TOKEN = 2;
const TOKENS_PER_MESSAGE = 16;
const TOKENS_PER_IMAGE = 1600;

/** Validate a parsed body. Returns the canonical request (source 'anthropic'); throws GatewayError naming the exact path. */
export function validateMessagesRequest(body: JsonValue, header: MessagesHeaderInfo, opts: ValidateOptions): CanonicalRequest {
  if (!isObject(body)) throw invalid('', `The request body must be a JSON object, got ${kind(body)}.`);
  rejectUnknown(body, TOP_LEVEL, '');
  rejectUnsupported(body);
  const scan = newScan(opts.betas);

  const model = validateModel(body.model);
  const maxTokens = validateMaxTokens(body.max_tokens, opts.countTokens === true);
  const stream = body.stream === undefined ? false : bool(body.stream, 'stream');
  validateSampling(body);
  const endUserId = body.metadata === undefined ? undefined : validateMetadata(body.metadata);
  if (body.service_tier !== undefined) oneOf(body.service_tier, 'service_tier', ['auto', 'standard_only']);
  let speed: string | undefined;
  if (body.speed !== undefined) {
    speed = oneOf(body.speed, 'speed', ['standard', 'fast']);
    if (speed === 'fast') requireBeta(scan.betas, BETA.fastMode, 'speed', 'the value "fast"');
  }
  cacheControl(body.cache_control, 'cache_control');
  if (body.diagnostics !== undefined) validateDiagnostics(body.diagnostics, scan);
  if (body.safeguards !== undefined) validateSafeguards(body.safeguards, scan);

  const tools = body.tools === undefined ? { count: 0, hostedToolUses: 0, searchOnly: false } : validateTools(body.tools, scan, opts);
  const toolChoice = body.tool_choice === undefined ? undefined : validateToolChoice(body.tool_choice, tools.count, scan);
  if (body.thinking !== undefined) validateThinking(body.thinking, maxTokens, scan);
  if (body.output_config !== undefined) validateOutputConfig(body.output_config, scan);
  checkForcedToolUse(toolChoice, scan);
  if (body.context_management !== undefined) validateContextManagement(body.context_management);

  if (body.system !== undefined) validateSystem(body.system, scan);
  const messageCount = validateMessages(body.messages, scan);
  // the gateway's own search blocks in history become text any upstream reads (a new body: not the client's bytes)
  const messages = openGatewaySearches(body.messages, opts.sealer ?? createSealer(undefined));
  const sent = messages === body.messages ? body : { ...body, messages: messages! };

  const needs: RequestNeeds = {
    modalities: new Set<'text' | 'image' | 'audio'>(scan.images > 0 ? ['text', 'image'] : ['text']),
    tools: tools.count > 0,
    reasoning: scan.thinkingType === 'enabled' || scan.thinkingType === 'adaptive' || scan.effort,
    signedThinking: scan.signedThinking,
  };
  if (speed !== undefined) needs.speed = speed;
  if (tools.searchOnly) needs.searchOnly = true;
  return {
    source: 'anthropic',
    body: sent,
    model,
    stream,
    maxTokens,
    // validated above: an integer >= 1024 when thinking is `enabled`; routing reconciles it with a capped max_tokens
    thinkingBudget: scan.thinkingType === 'enabled' ? ((body.thinking as JsonObject).budget_tokens as number) : null,
    needs,
    inputTokenBound:
      Math.ceil(scan.bytes / BYTES_PER_TOKEN) + TOKENS_PER_MESSAGE * messageCount + TOKENS_PER_IMAGE * scan.images,
    hostedToolUses: tools.hostedToolUses,
    labels: endUserId === undefined ? {} : { endUserId },
    forward: { betas: header.betas, headers: header.forward, sessionId: header.sessionId },
  };
}

function validateModel(v: JsonValue | undefined): string {
  if (v === undefined || v === null) {
    throw invalid(
      'model',
      `required, got ${kind(v)}: an omitted or null model is not auto-routing on /v1/messages. ` +
        'Name a model, or send "gateway-auto" to let the gateway choose',
    );
  }
  return str(v, 'model', 1);
}

function validateMaxTokens(v: JsonValue | undefined, countTokens: boolean): number | null {
  if (v === undefined) {
    if (countTokens) return null;
    throw invalid('max_tokens', 'required field is missing; send an integer >= 1 (it covers visible and thinking output)');
  }
  if (v === 0) {
    throw capabilityRejected(
      'max_tokens',
      '0 (a cache prewarm) is not supported: nothing would be generated and the request cannot be settled. Change it to an integer >= 1',
    );
  }
  return int(v, 'max_tokens', 1);
}

function validateSampling(body: JsonObject): void {
  if (body.temperature !== undefined) num(body.temperature, 'temperature', 0, 1);
  if (body.top_p !== undefined) num(body.top_p, 'top_p', 0, 1);
  if (body.top_k !== undefined) int(body.top_k, 'top_k', 0);
  if (body.stop_sequences !== undefined) {
    const list = arr(body.stop_sequences, 'stop_sequences');
    if (list.length > MAX_STOP_SEQUENCES) {
      throw invalid('stop_sequences', `must hold at most ${MAX_STOP_SEQUENCES} strings, got ${list.length}`);
    }
    for (let i = 0; i < list.length; i++) str(list[i], `stop_sequences[${i}]`, 1);
  }
}
