// The `cut-tool` option (`<model>;cut-tool`): the demo model's tool call cut by the token limit
// halfway through its arguments (FAILURE-MODES F5), in a stream and in a whole answer.
// `<model>;cut-tool=closed`: the limit falls just after the call's last argument piece, so its JSON is
// whole; Chat and Messages stop its block, and only the turn's end says it was cut (Anthropic documents
// that sign); a Responses call is never said done (no `function_call_arguments.done` nor
// `output_item.done`, its item `incomplete`) before `response.incomplete`.
// `<model>;cut-tool=done`: a Responses call said done and completed, then the turn ends incomplete at
// the limit (the item itself says it is whole); for Chat and Messages the same as `closed`.
import type { Frame, Proto } from './io.js';
import { isObj, type Obj } from './json.js';

const halve = (s: string): string => s.slice(0, Math.max(1, Math.floor(s.length / 2)));

/** `cut` (the bare option), `closed` or `done`: see above */
export type CutMode = 'cut' | 'closed' | 'done';

export const cutMode = (value: string | undefined): CutMode => (value === 'closed' || value === 'done' ? value : 'cut');

/**
 * A stream: the first argument piece is halved and the later ones dropped; the turn ends as each
 * protocol ends a cut turn (Chat finish_reason length; Messages stop_reason max_tokens, the block
 * still stopped as a relay would; Responses `response.incomplete`, the call never said done);
 * `closed` keeps every piece (the JSON whole) and ends the turn so; `done` keeps a Responses call's
 * done events too.
 */
export function cutTool(proto: Proto, frames: Frame[], mode: CutMode = 'cut'): Frame[] {
  if (proto === 'responses') return cutResponses(frames, mode);
  const closed = mode !== 'cut';
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
 * A Responses stream cut in its function call: its argument deltas (halved unless `closed`/`done`),
 * its done events dropped unless `done`, and `response.completed` turned into `response.incomplete`
 * (max_output_tokens) whose output has the call as far as it came, `incomplete` unless `done`.
 */
function cutResponses(frames: Frame[], mode: CutMode): Frame[] {
  const out: Frame[] = [];
  let sent: string | undefined;
  let call: string | undefined;
  for (const f of frames) {
    const d = f.data;
    if (!isObj(d)) {
      out.push(f);
      continue;
    }
    if (d.type === 'response.output_item.added' && isObj(d.item) && d.item.type === 'function_call') call = String(d.item.id);
    if (d.type === 'response.function_call_arguments.delta' && d.item_id === call && typeof d.delta === 'string') {
      if (mode === 'cut' && sent !== undefined) continue;
      if (mode === 'cut') d.delta = halve(d.delta);
      sent = (sent ?? '') + d.delta;
    }
    const doneItem = d.type === 'response.output_item.done' && isObj(d.item) && d.item.id === call;
    if (mode !== 'done' && call !== undefined && (doneItem || (d.type === 'response.function_call_arguments.done' && d.item_id === call))) continue;
    if (d.type === 'response.completed' && isObj(d.response)) {
      f.event = d.type = 'response.incomplete';
      const response = d.response;
      response.status = 'incomplete';
      response.incomplete_details = { reason: 'max_output_tokens' };
      if (mode !== 'done' && Array.isArray(response.output)) {
        response.output = response.output.map((o) => (isObj(o) && o.id === call ? { ...o, arguments: sent ?? '', status: 'incomplete' } : o));
      }
    }
    // the sequence numbers stay consecutive without the frames dropped
    if ('sequence_number' in d) d.sequence_number = out.length;
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
 * Responses' arguments stay whole; `done`: a Responses call's item says it completed too.
 */
export function cutToolJson(proto: Proto, input: Obj, mode: CutMode = 'cut'): Obj {
  const cutArgs = mode !== 'cut' ? (s: string): string => s : halve;
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
    body.output = [...body.output.slice(0, at), { ...call, arguments: cutArgs(call.arguments), status: mode === 'done' ? 'completed' : 'incomplete' }];
    body.status = 'incomplete';
    body.incomplete_details = { reason: 'max_output_tokens' };
  }
  return body;
}
