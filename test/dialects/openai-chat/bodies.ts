// Request bodies and helpers shared by the validation tests.
import type { JsonObject, JsonValue } from '../../../lib/chunks.js';
import { GatewayError } from '../../../lib/errors.js';

export const base = (): JsonObject => ({ model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }] });
export const tools = (): JsonValue[] => [
  { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: true } },
];
export const toolBase = (): JsonObject => ({
  model: 'gpt-5',
  tools: tools(),
  messages: [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: [{ type: 'text', text: 'weather?' }] },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
  ],
});

export const img = (url: string, detail?: string): JsonValue => ({ type: 'image_url', image_url: detail === undefined ? { url } : { url, detail } });
export const audio = (data: string, format: string): JsonValue => ({ type: 'input_audio', input_audio: { data, format } });

/** Runs `fn` and returns the GatewayError it throws. */
export function thrown(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    if (GatewayError.is(err)) return err;
    throw err;
  }
  throw new Error('expected a GatewayError');
}
