// Every request translation between two dialects, as (client dialect, deployment API, encoder).
// Same-dialect (native) encoders belong to the dialects themselves; the registry
// (lib/dialects/request-encoders.ts) puts both in one table.
import type { Deployment, DialectName } from '../chunks.js';
import type { RequestEncoder } from '../dialects/dialect.js';
import { withCacheBreakpoint } from './cache-breakpoint.js';
import { chatToAnthropic } from './chat-to-messages.js';
import { chatToResponses } from './chat-to-responses.js';
import { anthropicToChat } from './messages-to-chat.js';
import { anthropicToResponses } from './messages-to-responses.js';
import { responsesToAnthropic, responsesToChat } from './responses-via-chat.js';

export const translators: ReadonlyArray<readonly [DialectName, Deployment['api'], RequestEncoder]> = [
  ['anthropic', 'chat', anthropicToChat],
  ['openai-chat', 'messages', withCacheBreakpoint(chatToAnthropic)],
  ['anthropic', 'responses', anthropicToResponses],
  ['openai-chat', 'responses', chatToResponses],
  ['openai-responses', 'messages', withCacheBreakpoint(responsesToAnthropic)],
  ['openai-responses', 'chat', responsesToChat],
];
