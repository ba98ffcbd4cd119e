// The deterministic demo model shared by every protocol: what it answers, which tool it calls with
// which arguments, its reasoning text and signatures, and its token counts.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { asArr, asStr, countWords, isObj, type Obj } from './json.js';
import { optInt, type SimSpec } from './spec.js';

/** Fixed secret of the sim's "thinking signature" / "encrypted reasoning" scheme. */
export const SIM_SECRET = 'gateway-sim-secret-v1';

/** base64(HMAC-SHA256(SIM_SECRET, `${model}:${text}`)): thinking signatures and encrypted_content. */
export function simSignature(model: string, text: string): string {
  return createHmac('sha256', SIM_SECRET).update(`${model}:${text}`).digest('base64');
}

export function verifySignature(model: string, text: string, sig: unknown): boolean {
  if (typeof sig !== 'string') return false;
  const want = Buffer.from(simSignature(model, text));
  const got = Buffer.from(sig);
  return want.length === got.length && timingSafeEqual(want, got);
}

export const REDACTED_PREFIX = 'sim-redacted:';

export function redactedData(model: string, text: string): string {
  return REDACTED_PREFIX + simSignature(model, text);
}

/** First n characters (code points, never splitting a surrogate pair). */
export function head(s: string, n: number): string {
  const cps = Array.from(s);
  return cps.length <= n ? s : cps.slice(0, n).join('');
}

export const helloText = (model: string, user: string): string => `Hello from ${model}! You said: ${head(user, 200)}`;
export const toolResultText = (result: string): string => `Tool result received: ${head(result, 200)}`;
export const thinkingText = (user: string): string => `Thinking about: ${head(user, 50)}`;

export interface ToolDef {
  name: string;
  schema: unknown;
  deferred?: boolean;
  /** a Responses `namespace` tool's member: its calls name the namespace too */
  namespace?: string;
}

/** What the protocol module extracted from a request. */
export interface Conversation {
  lastUserText: string;
  /** Text of the tool result when the last message/item is a tool result. */
  toolResult?: string;
  tools: ToolDef[];
  /** tool_choice naming one tool. */
  forcedTool?: string;
  /** tool_choice "none". */
  toolsDisabled?: boolean;
  /** how many web search results the gateway fed back so far (the search model's rounds) */
  searchesDone?: number;
}

export interface DemoPlan {
  thinking?: string;
  text?: string;
  tool?: { name: string; args: Obj; argsJson: string; namespace?: string };
  /** a second call in the same turn (the search model's `with=<tool>`; rendered on Chat only) */
  also?: { name: string; argsJson: string };
  outputTokens: number;
  thinkingTokens: number;
}

export function chooseTool(conv: Conversation): ToolDef | undefined {
  const tools = conv.tools.filter((t) => t.name !== '');
  if (tools.length === 0 || conv.toolsDisabled) return undefined;
  if (conv.forcedTool !== undefined) {
    const f = tools.find((t) => t.name === conv.forcedTool);
    if (f) return f;
  }
  const said = conv.lastUserText.toLowerCase();
  return (
    tools.find((t) => said.includes(t.name.toLowerCase())) ??
    tools.find((t) => t.name === 'Bash') ??
    tools.find((t) => !t.deferred) ??
    tools[0]
  );
}

function firstType(s: Obj): string | undefined {
  const t = s.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return t.find((x): x is string => typeof x === 'string' && x !== 'null') ?? 'null';
  if (isObj(s.properties)) return 'object';
  return undefined;
}

/** A simple deterministic value that satisfies a JSON Schema (first enum, "x", 1, true, ...). */
export function valueForSchema(schema: unknown, depth = 0): unknown {
  if (!isObj(schema) || depth > 6) return 'x';
  if ('const' in schema) return schema.const;
  const en = asArr(schema.enum);
  if (en.length > 0) return en[0];
  if ('default' in schema) return schema.default;
  for (const k of ['anyOf', 'oneOf', 'allOf']) {
    const alts = asArr(schema[k]);
    if (alts.length > 0) return valueForSchema(alts[0], depth + 1);
  }
  const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  switch (firstType(schema)) {
    case 'number':
      return min ?? 1;
    case 'integer':
      return min !== undefined ? Math.ceil(min) : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      const n = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return Array.from({ length: n }, () => valueForSchema(schema.items, depth + 1));
    }
    case 'object':
      return argsForSchema(schema, depth + 1);
    case 'string': {
      const n = typeof schema.minLength === 'number' ? schema.minLength : 1;
      return 'x'.repeat(Math.max(1, n));
    }
    default:
      return 'x';
  }
}

const isStringProp = (p: unknown): boolean => isObj(p) && (p.type === undefined || p.type === 'string');

/** The file the demo model's `apply_patch` calls create, and its one line. */
export const PATCH_FILE = 'gateway-patch-ok.txt';
export const PATCH_LINE = 'gateway-patch-ok';
/** The demo patch in Codex's free-text grammar (`*** Begin Patch` … `*** End Patch`). */
export const DEMO_PATCH = `*** Begin Patch\n*** Add File: ${PATCH_FILE}\n+${PATCH_LINE}\n*** End Patch\n`;

/** Arguments of the demo model's `apply_patch` call: Codex's patch text, or a create_file operation. */
function patchArgs(props: Obj): Obj | undefined {
  if ('input' in props && isStringProp(props.input)) return { input: DEMO_PATCH };
  if ('path' in props && 'type' in props) return { type: 'create_file', path: PATCH_FILE, diff: `+${PATCH_LINE}\n` };
  return undefined;
}

/**
 * Tool arguments generated from a JSON Schema. A `command` string property (or Codex's `cmd`)
 * gets `echo gateway-tool-ok` (plus `description: "Print a marker"` when the schema has it), a
 * `commands` string array gets that one command; a tool named `apply_patch` creates
 * `gateway-patch-ok.txt` (patchArgs); every other required property gets a simple value.
 */
export function argsForSchema(schema: unknown, depth = 0, toolName?: string): Obj {
  const out: Obj = {};
  if (!isObj(schema)) return out;
  const props = isObj(schema.properties) ? schema.properties : {};
  const patch = toolName === 'apply_patch' ? patchArgs(props) : undefined;
  if (patch !== undefined) return patch;
  const cmdKey = ['command', 'cmd'].find((k) => k in props && isStringProp(props[k]));
  if (cmdKey !== undefined) {
    out[cmdKey] = 'echo gateway-tool-ok';
    if ('description' in props) out.description = 'Print a marker';
  }
  if (depth === 0 && isObj(props.commands) && props.commands.type === 'array') out.commands = ['echo gateway-tool-ok'];
  for (const r of asArr(schema.required)) {
    if (typeof r === 'string' && !(r in out)) out[r] = valueForSchema(props[r], depth + 1);
  }
  return out;
}

export function makePlan(spec: SimSpec, conv: Conversation, wantThinking: boolean): DemoPlan {
  const thinking = wantThinking ? thinkingText(conv.lastUserText) : undefined;
  const thinkingTokens = thinking !== undefined ? countWords(thinking) : 0;
  const search = searchPlan(spec, conv);
  if (search !== undefined) {
    const out = (search.tool ? Math.max(1, countWords(search.tool.argsJson)) : Math.max(1, countWords(search.text!))) + thinkingTokens;
    return { thinking, ...search, outputTokens: out, thinkingTokens };
  }
  const tool = conv.toolResult === undefined ? chooseTool(conv) : undefined;
  if (tool) {
    const args = argsForSchema(tool.schema, 0, tool.name);
    const argsJson = JSON.stringify(args);
    const out = Math.max(1, countWords(argsJson)) + thinkingTokens;
    const planned = tool.namespace === undefined ? { name: tool.name, args, argsJson } : { name: tool.name, args, argsJson, namespace: tool.namespace };
    return { thinking, tool: planned, outputTokens: out, thinkingTokens };
  }
  const text = conv.toolResult !== undefined ? toolResultText(conv.toolResult) : helloText(spec.model, conv.lastUserText);
  return { thinking, text, outputTokens: Math.max(1, countWords(text)) + thinkingTokens, thinkingTokens };
}

// ---- the search model: the gateway offers a `web_search` function (decisions §11) -------------------

const SEARCH_TOOL = 'web_search';
/** the first line of each result the gateway feeds back (lib/search/feed.ts RESULT_HEADER) */
const RESULT_HEADER = '[web_search result]';

/** How many search results the conversation already holds. */
export function searchesDone(value: unknown): number {
  const text = JSON.stringify(value ?? null);
  let n = 0;
  for (let at = text.indexOf(RESULT_HEADER); at >= 0; at = text.indexOf(RESULT_HEADER, at + 1)) n++;
  return n;
}

/**
 * The answer to search results: a sentence per result (up to `cite`, default 2) naming its title and
 * citing its id with the gateway's marker 【id】; without results, what the result said.
 */
export function citedAnswer(result: string, spec: SimSpec): string {
  const ids = [...result.matchAll(/^\d+\. id: (ws_[a-z2-7]+)\n {3}title: (.*)$/gm)].slice(0, optInt(spec, 'cite', 2));
  if (ids.length === 0) {
    const why = result.split('\n').find((l) => l !== '' && !l.startsWith(RESULT_HEADER)) ?? 'nothing';
    return `I could not search: ${head(why, 120)}`;
  }
  return ['Here is what I found.', ...ids.map(([, id, title]) => ` ${title} covers it.\u3010${id}\u3011`)].join('');
}

/**
 * With a `web_search` tool offered and no other tool named in the prompt: search (option `searches`,
 * default 1, rounds of one call each; `with=<tool>` calls that client tool in the same turn), then
 * answer citing the results.
 */
function searchPlan(spec: SimSpec, conv: Conversation): Pick<DemoPlan, 'text' | 'tool' | 'also'> | undefined {
  if (conv.toolsDisabled || !conv.tools.some((t) => t.name === SEARCH_TOOL)) return undefined;
  const fed = conv.searchesDone ?? 0;
  const fromSearch = conv.toolResult === undefined || conv.toolResult.includes(RESULT_HEADER);
  if (!fromSearch) return undefined;
  const named = conv.tools.find((t) => t.name !== SEARCH_TOOL && conv.lastUserText.toLowerCase().includes(t.name.toLowerCase()));
  if (named !== undefined && conv.toolResult === undefined) return undefined;
  if (fed < optInt(spec, 'searches', 1)) {
    const query = head(conv.lastUserText, 120) + (fed > 0 ? ` (more ${fed})` : '');
    const args = { query };
    // `with=<tool>`: the same turn also calls that client tool (a turn mixing search and client calls)
    const other = conv.tools.find((t) => t.name === spec.opts.get('with'));
    const also = other === undefined ? {} : { also: { name: other.name, argsJson: JSON.stringify(argsForSchema(other.schema, 0, other.name)) } };
    return { tool: { name: SEARCH_TOOL, args, argsJson: JSON.stringify(args) }, ...also };
  }
  return conv.toolResult === undefined ? undefined : { text: citedAnswer(conv.toolResult, spec) };
}

/** Splits text into `n` (option `deltas`, default 5) pieces of roughly equal length. */
export function splitDeltas(text: string, spec: SimSpec): string[] {
  const n = Math.max(1, optInt(spec, 'deltas', 5));
  const cps = Array.from(text);
  if (cps.length === 0) return [''];
  const size = Math.ceil(cps.length / n);
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(''));
  return out;
}

export interface CacheUsage {
  read: number;
  write: number;
}

export function cacheUsage(spec: SimSpec): CacheUsage {
  return { read: optInt(spec, 'cache-read', 0), write: optInt(spec, 'cache-write', 0) };
}

/** Concatenated text of a content value: a string, or an array of parts with `text`. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  const texts: string[] = [];
  for (const part of asArr(content)) {
    if (typeof part === 'string') texts.push(part);
    else if (isObj(part)) {
      const t = asStr(part.text);
      if (t !== undefined) texts.push(t);
      else if (part.content !== undefined) texts.push(contentText(part.content));
    }
  }
  return texts.join('');
}

/** The last text part of a content value (Claude Code puts reminders before the prompt). */
export function lastText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  const parts = asArr(content).filter((p): p is Obj => isObj(p) && typeof p.text === 'string');
  const last = parts[parts.length - 1];
  return last ? (last.text as string) : undefined;
}
