// The call items of a Responses response (client-encode-items.ts), written once a call's arguments
// are whole: a `function_call` (its arguments' done event), a `custom_tool_call` whose `input` is the
// string the function declared as `{input}` was given, a `shell_call` whose `action` is the
// arguments (one added/delta/done per command), an `apply_patch_call` whose `operation` is the
// arguments (its diff's delta/done). Shell and apply_patch calls are announced only here.
import type { JsonObject, JsonValue } from '../../chunks.js';
import { isObject } from '../../json/values.js';
import type { EmitEvent } from './client-encode-items.js';
import { patchOperation, shellAction, type ClientTool, type ClientToolKind } from './client-tools.js';

/** where a call item is written: the response's events and its output */
export interface ItemWriter {
  emit: EmitEvent;
  added(out: number, item: JsonObject): void;
  done(out: number, item: JsonObject): void;
}

/** a call block being closed: its item's place and id, the call id, what it calls, whether its arguments were streamed */
export interface CallItem {
  out: number;
  id: string;
  callId: string;
  target: ClientTool;
  streamed: boolean;
}

export function closeCall(w: ItemWriter, b: CallItem, args: string): void {
  const at = { item_id: b.id, output_index: b.out };
  const { target } = b;
  switch (target.kind) {
    case 'function':
      if (!b.streamed && args !== '') w.emit('response.function_call_arguments.delta', { ...at, delta: args });
      w.emit('response.function_call_arguments.done', { ...at, arguments: args });
      w.done(b.out, withNamespace({ id: b.id, type: 'function_call', status: 'completed', arguments: args, call_id: b.callId, name: target.name }, target));
      return;
    case 'custom': {
      const input = customInput(args);
      w.emit('response.custom_tool_call_input.delta', { ...at, delta: input });
      w.emit('response.custom_tool_call_input.done', { ...at, input });
      w.done(b.out, withNamespace({ id: b.id, type: 'custom_tool_call', status: 'completed', call_id: b.callId, name: target.name, input }, target));
      return;
    }
    case 'shell': {
      const action = shellAction(parseObject(args));
      w.added(b.out, { id: b.id, type: 'shell_call', status: 'in_progress', call_id: b.callId, action: { ...action, commands: [] }, environment: null });
      const commands = action.commands as string[];
      commands.forEach((command, i) => {
        w.emit('response.shell_call_command.added', { output_index: b.out, command_index: i, command: '' });
        w.emit('response.shell_call_command.delta', { output_index: b.out, command_index: i, delta: command });
        w.emit('response.shell_call_command.done', { output_index: b.out, command_index: i, command });
      });
      w.done(b.out, { id: b.id, type: 'shell_call', status: 'completed', call_id: b.callId, action, environment: null });
      return;
    }
    case 'apply_patch': {
      const operation = patchOperation(parseObject(args));
      const diff = operation.diff;
      w.added(b.out, { id: b.id, type: 'apply_patch_call', status: 'in_progress', call_id: b.callId, operation: typeof diff === 'string' ? { ...operation, diff: '' } : operation });
      if (typeof diff === 'string') {
        if (diff !== '') w.emit('response.apply_patch_call_operation_diff.delta', { ...at, delta: diff });
        w.emit('response.apply_patch_call_operation_diff.done', { ...at, diff });
      }
      w.done(b.out, { id: b.id, type: 'apply_patch_call', status: 'completed', call_id: b.callId, operation });
    }
  }
}

export const ID_PREFIX: Readonly<Record<ClientToolKind, string>> = { function: 'fc', custom: 'ctc', shell: 'sh', apply_patch: 'apc' };

export function withNamespace(item: JsonObject, target: ClientTool): JsonObject {
  if (target.namespace !== undefined) item.namespace = target.namespace;
  return item;
}

/** The arguments of a call as an object ({} when they are not one). */
function parseObject(args: string): JsonObject {
  try {
    const v = JSON.parse(args) as JsonValue;
    return isObject(v) ? v : {};
  } catch {
    return {};
  }
}

/** The `input` string of a custom tool called through a function declared as `{input: string}`. */
function customInput(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as Record<string, unknown>).input === 'string') {
      return (parsed as Record<string, string>).input!;
    }
  } catch {
    // not JSON: the model wrote the raw input
  }
  return args;
}
