// The `cut-tool` option (`<model>;cut-tool`): the demo model's tool call cut by the token limit
// halfway through its arguments (FAILURE-MODES F5), in a stream and in a whole answer.
// `<model>;cut-tool=closed`: the limit falls just after the call's last argument piece, so its JSON is
// whole and its block stops; only the turn's end says it was cut (Anthropic documents that sign).
import type { Frame, Proto } from './io.js';
import { isObj, type Obj } from './json.js';

const halve = (s: string): string => s.slice(0, Math.max(1, Math.floor(s.length / 2)));

/**
 * A stream: the first argument piece is halved and the later ones dropped; the turn ends as each
 * protocol ends a cut turn (Chat finish_reason length; Messages stop_reason max_tokens, the block
 * still stopped as a relay would); `closed` keeps every piece (the JSON whole) and ends the turn so.
 */
export function cutTool(proto: Proto, frames: Frame[], closed = false): Frame[] {
  const out: Frame[] = [];
  let cut = false;
  for (const f of frames) {
    const d = f.data;
    if (proto === 'chat' && isObj(d) && Array.isArray(d.choices) && isObj(d.choices[0])) {
      const ch = d.choices[0];
      const call = isObj(ch.delta) && Array.isArray(ch.delta.tool_calls) && isObj(ch.delta.tool_calls[0]) ? ch.delta.tool_calls[0] : undefined;
      const fn = isObj(call?.function) ? call.function : undefined;
      if (!closed && fn !== undefined && typeof fn.arguments === 'string' && fn.arguments !== '') {
        if (cut) continue;
        fn.arguments = halve(fn.arguments);
        cut = true;
      }
      if (ch.finish_reason !== null && ch.finish_reason !== undefined) ch.finish_reason = 'length';
    } else if (proto === 'anthropic' && isObj(d)) {
      if (!closed && d.type === 'content_block_delta' && isObj(d.delta) && d.delta.type === 'input_json_delta' && typeof d.delta.partial_json === 'string') {
        if (cut) continue;
        d.delta.partial_json = halve(d.delta.partial_json);
        cut = true;
      }
      if (d.type === 'message_delta' && isObj(d.delta)) d.delta.stop_reason = 'max_tokens';
    }
    out.push(f);
  }
  return out;
}

/**
 * A whole answer, as each API answers a turn the limit cut inside its first call: Chat's arguments
 * halved with finish_reason length, Responses' too with status incomplete (max_output_tokens), the
 * calls after it dropped; an Anthropic Message keeps the tool_use as its last block with its
 * `input` an object (what the API made of the pieces it had: no JSON end shows the cut) and says
 * stop_reason max_tokens, the sign Anthropic documents for an incomplete call. `closed`: Chat's and
 * Responses' arguments stay whole.
 */
export function cutToolJson(proto: Proto, input: Obj, closed = false): Obj {
  const cutArgs = closed ? (s: string): string => s : halve;
  const body = structuredClone(input);
  if (proto === 'anthropic' && Array.isArray(body.content)) {
    const at = body.content.findIndex((b) => isObj(b) && b.type === 'tool_use');
    if (at === -1) return body;
    body.content = body.content.slice(0, at + 1);
    body.stop_reason = 'max_tokens';
  } else if (proto === 'chat' && Array.isArray(body.choices) && isObj(body.choices[0]) && isObj(body.choices[0].message)) {
    const choice = body.choices[0];
    const calls = (choice.message as Obj).tool_calls;
    const fn = Array.isArray(calls) && isObj(calls[0]) && isObj(calls[0].function) ? calls[0].function : undefined;
    if (fn === undefined || typeof fn.arguments !== 'string') return body;
    fn.arguments = cutArgs(fn.arguments);
    (choice.message as Obj).tool_calls = (calls as unknown[]).slice(0, 1);
    choice.finish_reason = 'length';
  } else if (proto === 'responses' && Array.isArray(body.output)) {
    const at = body.output.findIndex((o) => isObj(o) && o.type === 'function_call');
    const call = body.output[at];
    if (!isObj(call) || typeof call.arguments !== 'string') return body;
    body.output = [...body.output.slice(0, at), { ...call, arguments: cutArgs(call.arguments), status: 'incomplete' }];
    body.status = 'incomplete';
    body.incomplete_details = { reason: 'max_output_tokens' };
  }
  return body;
}
