// How an endpoint tells the client's dialect (its error envelopes) from the request.
import type { IncomingMessage } from 'node:http';
import type { DialectName } from '../chunks.js';

export const anthropicDialect = (): DialectName => 'anthropic';
export const openAiDialect = (): DialectName => 'openai-chat';
/** Requests that carry `anthropic-version` (or target the Messages family) get the Messages envelope. */
export const byHeaders = (req: IncomingMessage): DialectName => (req.headers['anthropic-version'] !== undefined || (req.url ?? '').startsWith('/v1/messages') ? 'anthropic' : 'openai-chat');
