// OpenAI echoes the request's `instructions` and `tools` in every Response event: `response.created`,
// `response.in_progress` (repeated-response.ts) and the terminal `response.completed` /
// `response.incomplete`. An agent's instructions are 10 KB and more (Codex: about 12.5 KB) and its
// tools several KB; reading them again in the terminal frame costs more than the rest of it. So the
// texts created wrote for them are kept, and a terminal frame that has those very texts in their
// places is read with `null` and `[]` there instead, its instructions and tools then being created's
// values: the texts are compared, not parsed again.
//
// Why that is exactly as strict as parsing the whole frame:
// - each kept text is a JSON value that decodes to created's value at the same depth (the
//   Response's member): created was read by its layout (frame-layouts.ts; its instructions text is
//   then found as below) or strictly with where its Response's members lie (response-frame.ts);
// - the terminal frame with the placeholders is then read by its layout, in which `"instructions":`
//   and `"tools":` each occur once, as the Response's keys (every key of those layouts is fixed, and
//   a string's body holds no raw quote), or strictly, its Response's `instructions` and `tools`
//   found to lie just where the placeholders do;
// - so the frame as it came is that frame with one valid value text for another in those members:
//   valid, with the same members, these two being created's.
// The gateway's own echo may reuse created's instructions text too (client-encode-echo.ts).
// created itself is read so too when it has the texts an earlier stream's created frame had
// (echoed-texts.ts: an agent sends the same instructions and tools with every request).
import type { JsonObject, JsonValue } from '../../chunks.js';
import { recogniseEvent } from './frame-layouts.js';
import { parseResponseFrame, type ResponseFrame } from './response-frame.js';
import { copyJson, KNOWN_INSTRUCTIONS, KNOWN_TOOLS, type Known } from './echoed-texts.js';

const INSTRUCTIONS = '"instructions":';
const TOOLS = '"tools":';
const AFTER_INSTRUCTIONS = '","max_output_tokens":';

const same = (r: [number, number] | undefined, at: number, length: number): boolean => r !== undefined && r[0] === at && r[1] === at + length;

/** a Response frame read with placeholders for its echoed members */
interface Placeheld {
  parsed: JsonObject;
  /** where the instructions' text began (-1: not replaced) */
  at: number;
  /** the text read, and where its Response's members lie in it when read strictly (not by a layout) */
  text: string;
  members: Map<string, [number, number]> | undefined;
}

/**
 * `data` of Response event `type` read with `null` in place of `instructions`' text (after the first
 * `"instructions":`) and `[]` in place of `tools`' (after the last `"tools":`), each when given; null
 * when it has not those texts there, or is not read that way (the caller then takes the usual path).
 * The placeholders' values are left in the object.
 */
function readWith(type: string, data: string, instructions: Known | undefined, tools: Known | undefined): Placeheld | null {
  let text = data;
  let at = -1;
  if (instructions !== undefined) {
    at = data.indexOf(INSTRUCTIONS) + INSTRUCTIONS.length;
    if (at < INSTRUCTIONS.length || data.slice(at, at + instructions.text.length) !== instructions.text) return null;
    text = `${data.slice(0, at)}null${data.slice(at + instructions.text.length)}`;
  }
  let toolsAt = -1;
  if (tools !== undefined) {
    toolsAt = text.lastIndexOf(TOOLS) + TOOLS.length;
    // after the instructions' placeholder, so that its place holds
    if (toolsAt <= at + 4 || text.slice(toolsAt, toolsAt + tools.text.length) !== tools.text) return null;
    text = `${text.slice(0, toolsAt)}[]${text.slice(toolsAt + tools.text.length)}`;
  }
  const recognised = recogniseEvent(type, text)?.parsed;
  if (recognised !== undefined) return { parsed: recognised, at, text, members: undefined };
  const frame = parseResponseFrame(type, text);
  if (frame === null) return null;
  if (instructions !== undefined && !same(frame.members.get('instructions'), at, 4)) return null;
  if (tools !== undefined && !same(frame.members.get('tools'), toolsAt, 2)) return null;
  return { parsed: frame.parsed, at, text, members: frame.members };
}

/** One stream's echoed request members, as created wrote them. */
export class EchoedRequest {
  private instructions: Known | undefined = undefined;
  private tools: Known | undefined = undefined;
  /** where created's instructions text lies in its data (for the writer) */
  span: [number, number] | undefined = undefined;

  /** A `response.created` frame that its layout recognised (`parsed`): its tools are `[]`. */
  createdByLayout(data: string, parsed: JsonObject): void {
    const value = (parsed.response as JsonObject).instructions;
    if (typeof value !== 'string') return;
    const from = data.indexOf(INSTRUCTIONS) + INSTRUCTIONS.length;
    // the string's closing quote: the last `","max_output_tokens":`, as the first after it (see above)
    const to = data.lastIndexOf(AFTER_INSTRUCTIONS) + 1;
    if (from < INSTRUCTIONS.length || to <= from) return;
    this.instructions = { text: data.slice(from, to), value };
    this.span = [from, to];
  }

  /**
   * A `response.created` frame read strictly with its members' places (response-frame.ts); its
   * texts are remembered for later streams' created frames (echoed-texts.ts).
   */
  createdParsed(data: string, frame: ResponseFrame): void {
    const response = frame.parsed.response as JsonObject;
    const at = frame.members.get('instructions');
    if (typeof response.instructions === 'string' && at !== undefined) this.createdString(data.slice(at[0], at[1]), response.instructions, at);
    const tools = frame.members.get('tools');
    if (Array.isArray(response.tools) && response.tools.length > 0 && tools !== undefined) this.createdTools(data.slice(tools[0], tools[1]), response.tools);
  }

  /**
   * A `response.created` frame with texts earlier created frames had in its instructions' and tools'
   * places (echoed-texts.ts), read with placeholders there (its tools a copy of the remembered
   * value), as createdParsed would have read it; null when it has none of them there or is not read
   * that way (the caller then takes the usual path).
   */
  createdKnown(type: string, data: string): JsonObject | null {
    if (KNOWN_INSTRUCTIONS.size === 0 && KNOWN_TOOLS.size === 0) return null;
    const at = data.indexOf(INSTRUCTIONS) + INSTRUCTIONS.length;
    const instructions = at < INSTRUCTIONS.length ? undefined : KNOWN_INSTRUCTIONS.at(data, at);
    const toolsAt = data.lastIndexOf(TOOLS) + TOOLS.length;
    const tools = toolsAt < TOOLS.length ? undefined : KNOWN_TOOLS.at(data, toolsAt);
    if (instructions === undefined && tools === undefined) return null;
    const read = readWith(type, data, instructions, tools);
    if (read === null) return null;
    const response = read.parsed.response as JsonObject;
    if (instructions !== undefined) {
      response.instructions = instructions.value;
      this.instructions = instructions;
      this.span = [read.at, read.at + instructions.text.length];
    } else if (read.members === undefined) {
      // read by its layout: its text found as createdByLayout finds it (before the tools' placeholder, so in place)
      this.createdByLayout(read.text, read.parsed);
    } else if (typeof response.instructions === 'string') {
      // read strictly: its text as createdParsed keeps it (before the tools' placeholder, so in place)
      const r = read.members.get('instructions');
      if (r !== undefined) this.createdString(read.text.slice(r[0], r[1]), response.instructions, r);
    }
    if (tools !== undefined) {
      const value = copyJson(tools.value);
      response.tools = value;
      this.tools = { text: tools.text, value };
    } else if (Array.isArray(response.tools) && response.tools.length > 0) {
      // read strictly after the instructions' placeholder: its text is the frame's own from there
      const r = read.members?.get('tools');
      if (r !== undefined) this.createdTools(read.text.slice(r[0], r[1]), response.tools);
    }
    return read.parsed;
  }

  /** created's instructions text, kept for this stream's later frames and remembered for later streams' */
  private createdString(text: string, value: string, span: [number, number]): void {
    this.instructions = { text, value };
    this.span = span;
    KNOWN_INSTRUCTIONS.remember(text, value);
  }

  /** created's tools text, likewise (remembered as a copy: the stream's own value may be changed later) */
  private createdTools(text: string, value: JsonValue[]): void {
    this.tools = { text, value };
    KNOWN_TOOLS.remember(text, copyJson(value));
  }

  /**
   * A terminal Response frame (`response.completed` / `response.incomplete`), or an in_progress one
   * that does not repeat created's text, with created's texts in its instructions' and tools'
   * places, read with placeholders there; null when it has not those texts there or is not read
   * that way (the caller then takes the usual path).
   */
  terminal(type: string, data: string): JsonObject | null {
    const instructions = this.instructions;
    const tools = this.tools;
    if (instructions === undefined && tools === undefined) return null;
    const read = readWith(type, data, instructions, tools);
    if (read === null) return null;
    const response = read.parsed.response as JsonObject;
    if (instructions !== undefined) response.instructions = instructions.value;
    if (tools !== undefined) response.tools = tools.value;
    return read.parsed;
  }
}
