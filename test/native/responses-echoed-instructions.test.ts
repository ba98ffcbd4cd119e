// Responses → Responses streams through bin/gateway whose upstream echoes the request's instructions
// and tools in its Response events, as OpenAI does: its terminal frame is read with created's texts
// compared (openai-responses/echoed-request.ts), and the gateway's own echo may reuse the instructions text
// (client-encode-echo.ts). What the client sees must not change: every Response event is the
// serialisation of its object (JSON.stringify's bytes, whatever escapes the upstream wrote), with the
// client's own instructions (not what the upstream echoed); an upstream whose terminal frame echoes
// other instructions is still read, and one whose terminal frame is broken after the instructions is
// still refused with the strict parser's error. (The same file passes on the session's starting build:
// nothing a client sees changes. It fails when the writer reuses text the serialiser would not write,
// or instructions the client did not send.)
import t from 'tap';
import { send } from '../failure-modes/clients.js';
import { modelId, recordedStream, SSE, startFm, type Received, type Script } from '../failure-modes/upstream.js';

type Obj = Record<string, any>;

const RECORDED = recordedStream('openai-responses/text.sse');
const RESPONSE_EVENTS = ['response.created', 'response.in_progress', 'response.completed'];
const MARK = '\u0000instructions\u0000';

/**
 * text.sse answering `req`, each Response event's instructions written as `json(type)` and its data
 * then edited by `edit`, every other member as recorded
 */
function echoing(req: Received, json: (type: string) => string, edit: (type: string, data: string) => string = (_t, d) => d): string {
  return RECORDED.split('\n\n')
    .map((frame) => {
      const at = frame.indexOf('data: ');
      if (at < 0) return frame;
      const parsed = JSON.parse(frame.slice(at + 6)) as Obj;
      if (!RESPONSE_EVENTS.includes(parsed.type as string)) return frame;
      parsed.response.instructions = MARK;
      parsed.response.model = req.body.model; // the model dispatched
      parsed.response.tools = req.body.tools ?? []; // the tools it was sent
      const data = JSON.stringify(parsed).replace(JSON.stringify(MARK), () => json(parsed.type as string));
      return `${frame.slice(0, at + 6)}${edit(parsed.type as string, data)}`;
    })
    .join('\n\n');
}

const instructionsOf = (req: Received): string => String(req.body.instructions);
const canned = (body: string): { headers: Record<string, string>; body: string } => ({ headers: SSE, body });

const script: Script = {
  // as OpenAI writes it (JSON.stringify's escapes)
  'r-echo': (req) => canned(echoing(req, () => JSON.stringify(instructionsOf(req)))),
  // escapes the gateway's serialiser never writes: \u for é, \/ for /
  'r-echo-escaped': (req) => canned(echoing(req, () => JSON.stringify(instructionsOf(req)).replace(/é/g, '\\u00e9').replace(/\//g, '\\/'))),
  // the upstream echoes instructions of its own
  'r-echo-other': (req) => canned(echoing(req, () => JSON.stringify(`(upstream) ${instructionsOf(req)}`))),
  // the terminal frame echoes other instructions than created did
  'r-echo-changed': (req) => canned(echoing(req, (type) => JSON.stringify(type === 'response.completed' ? `${instructionsOf(req)}!` : instructionsOf(req)))),
  // the terminal frame echoes created's text, then breaks
  'r-echo-broken': (req) =>
    canned(echoing(req, () => JSON.stringify(instructionsOf(req)), (type, data) => (type === 'response.completed' ? data.replace('"max_output_tokens":null', '"max_output_tokens":nul') : data))),
};

const NAMES = Object.keys(script);

/** Codex-like function tools */
const TOOLS = [
  { type: 'function', name: 'shell', description: 'Runs a command.\nUse "bash -lc".', strict: false, parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } }, required: ['command'] } },
  { type: 'function', name: 'apply_patch', description: 'Edits files: é / ü', parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] } },
];

const SHORT = 'You are "support".\n\tUse é / ü; never guess. 😀 \\ done';
const AGENT = `You are a coding agent.\n\n${Array.from({ length: 110 }, (_, i) => `- Rule ${i}: read the file first; run \`npm test\` in a/b.\tNever guess "paths" (é).\n`).join('')}`;

/** the Response events of a streamed answer, each with its data text */
function responseEvents(a: { frames: { event?: string; data: string }[] }): { type: string; text: string; json: Obj }[] {
  return a.frames.filter((f) => f.event !== undefined && RESPONSE_EVENTS.includes(f.event)).map((f) => ({ type: f.event!, text: f.data, json: JSON.parse(f.data) as Obj }));
}

t.test('Responses → Responses: the Response events echo the client\'s instructions in the serialiser\'s bytes', async (t) => {
  const { gw } = await startFm(t, script, NAMES.map((name) => ({ name, api: 'responses' as const })));
  for (const [size, instructions, tools] of [['short', SHORT, undefined], ['agent-sized', AGENT, undefined], ['agent-sized with tools', AGENT, TOOLS]] as const) {
    for (const name of ['r-echo', 'r-echo-escaped', 'r-echo-other', 'r-echo-changed']) {
      const a = await send(gw, 'responses', { model: modelId(name), input: 'hi', instructions, tools, stream: true });
      t.equal(a.status, 200, `${name}, ${size}: status 200 (${a.status === 200 ? "" : a.text.slice(0, 200)})`);
      const events = responseEvents(a);
      t.same(events.map((e) => e.type), RESPONSE_EVENTS, `${name}, ${size}: created, in_progress and completed`);
      for (const e of events) {
        t.equal(e.json.response.instructions, instructions, `${name}, ${size}, ${e.type}: the client's instructions`);
        t.equal(e.text, JSON.stringify(e.json), `${name}, ${size}, ${e.type}: the serialiser's bytes`);
      }
      t.same(events.map((e) => (e.json.response.tools as Obj[]).map((tool) => tool.name)), Array(3).fill(tools === undefined ? [] : ['shell', 'apply_patch']), `${name}, ${size}: the tools echoed`);
      t.match(events[2]?.json.response, { status: 'completed', output: [{ type: 'message', content: [{ text: '4200 + 42 equals 4242.' }] }], usage: { input_tokens: 16, output_tokens: 11 } }, `${name}, ${size}: the answer and its usage`);
    }
    const broken = await send(gw, 'responses', { model: modelId('r-echo-broken'), input: 'hi', instructions, tools, stream: true });
    // the whole answer is held until its first content frame: the client gets the strict parser's refusal
    t.equal(broken.status, 500, `r-echo-broken, ${size}: refused`);
    t.match(broken.json, { error: { message: /integrity check: Responses event data: invalid JSON at response\.max_output_tokens/ } }, `r-echo-broken, ${size}: the strict parser's error`);
  }
});
