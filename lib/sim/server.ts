// The simulated upstream provider: a real HTTP server that speaks Anthropic's Messages protocol
// and OpenAI's Chat Completions / Responses / transcription protocols, with behaviour chosen by
// the upstream model name (see spec.ts): recorded fixtures, faults, or a deterministic demo model.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import busboy from 'busboy';
import { anthropicCountTokens, anthropicDemo, validateMessages } from './anthropic.js';
import { chatDemo, validateChat } from './chat.js';
import { deliver, sendStatusFault } from './faults.js';
import { replayFixture } from './fixtures.js';
import { Out, type Outcome, type Proto } from './io.js';
import { searchesDone } from './demo.js';
import { isObj, type Obj } from './json.js';
import { RequestLog, type SimRequest } from './log.js';
import { responsesDemo, validateResponses } from './responses.js';
import { FAULT_KINDS, Ids, isFaultKind, optFlag, optInt, parseSimModel, type DemoCtx, type FaultKind } from './spec.js';
import { transcriptionDemo, validateUpload, type Upload } from './transcription.js';
import { closeNow, listen } from '../listen.js';

export type { SimRequest } from './log.js';

export interface SimProvider {
  /** Base URL, e.g. http://127.0.0.1:PORT (append /v1/messages, /v1/chat/completions ...). */
  url: string;
  /** Live request log (oldest first). */
  requests: SimRequest[];
  reset(): void;
  close(): Promise<void>;
}

export interface SimOptions {
  host?: string;
  /** 0 (default) takes a free port. */
  port?: number;
  /** Most requests kept in the log (oldest dropped first); default 1000. */
  logLimit?: number;
}

type Route = Proto | 'count_tokens';
const ROUTES: Record<string, Route> = {
  '/v1/messages': 'anthropic',
  '/v1/messages/count_tokens': 'count_tokens',
  '/v1/chat/completions': 'chat',
  '/v1/responses': 'responses',
  '/v1/audio/transcriptions': 'transcription',
};

const MAX_BODY = 64 * 1024 * 1024;

class TooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => (size > MAX_BODY ? reject(new TooLarge('request body too large')) : resolve(Buffer.concat(chunks))));
    req.on('error', reject);
  });
}

function parseMultipart(req: IncomingMessage, raw: Buffer): Promise<Upload> {
  return new Promise((resolve, reject) => {
    const up: Upload = { fields: {} };
    const bb = busboy({ headers: req.headers });
    bb.on('field', (name, value) => {
      up.fields[name] = value;
    });
    bb.on('file', (name, stream, info) => {
      let bytes = 0;
      stream.on('data', (c: Buffer) => {
        bytes += c.length;
      });
      stream.on('end', () => {
        if (!up.file || name === 'file') up.file = { filename: info.filename ?? 'audio', bytes, mimeType: info.mimeType, field: name };
      });
    });
    bb.on('close', () => resolve(up));
    bb.on('error', reject);
    bb.end(raw);
  });
}

function authProblem(route: Route, req: IncomingMessage): { status: number; message: string } | undefined {
  if (route === 'anthropic' || route === 'count_tokens') {
    const key = req.headers['x-api-key'];
    if (typeof key !== 'string' || key.trim() === '') return { status: 401, message: 'x-api-key header is required' };
    const ver = req.headers['anthropic-version'];
    if (typeof ver !== 'string' || ver.trim() === '') return { status: 400, message: 'anthropic-version: header is required' };
    return undefined;
  }
  const auth = req.headers.authorization;
  if (typeof auth !== 'string' || !/^Bearer\s+\S+/i.test(auth)) {
    return {
      status: 401,
      message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
    };
  }
  return undefined;
}

interface State {
  log: RequestLog;
  ids: Ids;
}

function simEndpoint(req: IncomingMessage, res: ServerResponse, path: string, st: State): void {
  const reply = (status: number, body?: unknown): void => {
    const text = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
    res.end(text);
  };
  req.resume();
  if (path === '/_sim/requests' && req.method === 'GET') reply(200, st.log.entries);
  else if (path === '/_sim/requests' && req.method === 'DELETE') {
    st.log.clear();
    reply(204);
  } else if (path === '/_sim/health') reply(200, { ok: true, sim: true });
  else reply(404, { error: { message: `sim: no route ${req.method} ${path}`, type: 'not_found' } });
}

async function handle(req: IncomingMessage, res: ServerResponse, st: State): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sim.invalid');
  const path = url.pathname.replace(/\/+$/, '') || '/';
  if (path.startsWith('/_sim/') || path === '/') return simEndpoint(req, res, path === '/' ? '/_sim/health' : path, st);

  const route: Route | undefined = ROUTES[path] ?? ROUTES[`/v1${path}`];
  const proto: Proto = route === undefined ? 'chat' : route === 'count_tokens' ? 'anthropic' : route;
  const out = new Out(res, proto, `req_sim_${st.ids.next('req')}`);
  let raw: Buffer;
  try {
    raw = await readBody(req);
  } catch (err) {
    if (err instanceof TooLarge) out.error(413, 'Request exceeds the maximum allowed number of bytes.', { type: proto === 'anthropic' ? 'request_too_large' : undefined });
    return;
  }

  let body: unknown = raw.toString('utf8');
  let parseError: string | undefined;
  if (route === 'transcription') {
    try {
      body = await parseMultipart(req, raw);
    } catch (err) {
      parseError = `Could not parse multipart form: ${err instanceof Error ? err.message : String(err)}`;
    }
  } else if (raw.length > 0) {
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch (err) {
      parseError = `We could not parse the JSON body of your request: ${err instanceof Error ? err.message : String(err)}`;
    }
  } else parseError = 'The request body is empty; expected JSON.';
  const entry: SimRequest = { method: req.method ?? 'GET', path, query: url.search, headers: { ...req.headers }, body, at: Date.now() };
  st.log.add(entry);
  res.once('close', () => {
    if (!res.writableFinished) entry.aborted = true;
  });

  if (route === undefined) return out.error(404, `sim: no route ${req.method} ${path}`, { type: proto === 'anthropic' ? 'not_found_error' : undefined });
  if (req.method !== 'POST') return out.error(405, `sim: ${path} accepts only POST`);
  const auth = authProblem(route, req);
  if (auth) return out.error(auth.status, auth.message);
  if (parseError !== undefined) return out.error(400, parseError);
  if (!isObj(body)) return out.error(400, 'The request body must be a JSON object.');
  if (route === 'count_tokens') return out.json(200, anthropicCountTokens(body));

  const up = route === 'transcription' ? (body as unknown as Upload) : undefined;
  const model = up ? up.fields.model : body.model;
  const stream = up ? up.fields.stream === 'true' : body.stream === true;
  // `x-sim-model` (e.g. set by a provider's `headers` in the gateway config) overrides the body's
  // model for the behaviour, so a deployment can dispatch a real model name and still replay a fixture
  const override = req.headers['x-sim-model'];
  const spec = parseSimModel(typeof override === 'string' ? override : typeof model === 'string' ? model : '');
  if (spec.behaviour === 'fixture') return replayFixture(out, spec, stream);

  let kind: FaultKind | undefined;
  // `;after-search`: the fault hits only a request that already holds a web search result (the
  // gateway's search loop fails over mid-loop); before, the demo model answers
  const faulty = spec.behaviour === 'fault' && !(optFlag(spec, 'after-search') && searchesDone(body) === 0);
  if (faulty) {
    if (!isFaultKind(spec.arg)) return out.error(400, `sim: unknown fault kind "${spec.arg}"; known kinds: ${FAULT_KINDS.join(', ')}`);
    if (sendStatusFault(out, spec.arg, spec)) return;
    if (spec.arg === 'reset-before') return await out.destroy();
    if (spec.arg === 'slow') {
      if (!(await out.sleep(optInt(spec, 'ms', 2000)))) return;
    } else kind = spec.arg;
  }
  const ctx: DemoCtx = { spec, ids: st.ids };
  await deliver(out, demo(route, body, up, ctx), spec, kind);
}

function demo(route: Proto, body: Obj, up: Upload | undefined, ctx: DemoCtx): Outcome {
  const invalid = (message: string, param?: string): Outcome => ({ kind: 'error', status: 400, message, opts: { param } });
  if (route === 'anthropic') {
    const bad = validateMessages(body);
    return bad !== undefined ? invalid(bad) : anthropicDemo(body, ctx);
  }
  if (route === 'chat') {
    const bad = validateChat(body);
    return bad ? invalid(bad.message, bad.param) : chatDemo(body, ctx);
  }
  if (route === 'responses') {
    const bad = validateResponses(body);
    return bad ? invalid(bad.message, bad.param) : responsesDemo(body, ctx);
  }
  const upload = up ?? { fields: {} };
  const bad = validateUpload(upload);
  return bad ? invalid(bad.message, bad.param) : transcriptionDemo(upload, ctx);
}

export async function startSimProvider(opts: SimOptions = {}): Promise<SimProvider> {
  const st: State = { log: new RequestLog(opts.logLimit ?? 1000), ids: new Ids() };
  // A long keep-alive so pooled gateway connections are not closed under them between tests.
  const server: Server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    handle(req, res, st).catch((err: unknown) => {
      if (!res.headersSent) {
        const text = JSON.stringify({ error: { message: `sim internal error: ${err instanceof Error ? err.message : String(err)}`, type: 'server_error' } });
        res.writeHead(500, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
        res.end(text);
      } else res.destroy();
    });
  });
  server.on('clientError', (_err, socket) => {
    socket.destroy();
  });
  const url = await listen(server, opts.port ?? 0, opts.host ?? '127.0.0.1');
  let closing: Promise<void> | undefined;
  return {
    url,
    requests: st.log.entries,
    reset: () => {
      st.log.clear();
    },
    close: () => (closing ??= closeNow(server)),
  };
}
