// Codex's own tools on models without Responses tools (FAILURE-MODES §4, decisions §10): through
// bin/gateway to a Claude model (Anthropic Messages deployment) and a Chat Completions deployment,
// streamed and not, the client-executed `shell` and `apply_patch` tools and `custom` tools become
// function tools upstream and come back as `shell_call` / `apply_patch_call` / `custom_tool_call`
// items; `namespace` members keep their namespace; history in Codex's order (call, assistant
// text, output) reaches the upstream in a valid order. (Replays of captured Codex requests:
// codex-replay.test.ts.)
import t from 'tap';
import { upstreamCalls } from '../helpers/messages.js';
import { DEMO_PATCH, PATCH_FILE, PATCH_LINE } from '../../lib/sim/demo.js';
import { responsesGateway, type Ev, type Obj } from './harness.js';

const h = responsesGateway();

const UPSTREAMS = [
  { model: 'anthropic/claude-sonnet-5', path: '/v1/messages' },
  { model: 'openai/gpt-5', path: '/v1/chat/completions' },
] as const;

/** The tools the upstream was offered, as [name, parameters] whatever its dialect. */
function offered(call: Obj | undefined): Map<string, Obj> {
  const out = new Map<string, Obj>();
  for (const t of (call?.body.tools ?? []) as Obj[]) {
    if (t.function) out.set(t.function.name, t.function.parameters);
    else out.set(t.name, t.input_schema);
  }
  return out;
}

/** The upstream conversation as [role, kinds] pairs: `text`, `call:<name>`, `result:<id>`. */
function shape(call: Obj | undefined): [string, string[]][] {
  const msgs = (call?.body.messages ?? []) as Obj[];
  return msgs.map((m) => {
    if (m.role === 'tool') return ['tool', [`result:${m.tool_call_id}`]];
    const kinds: string[] = [];
    if (typeof m.content === 'string' && m.content !== '') kinds.push('text');
    for (const b of Array.isArray(m.content) ? (m.content as Obj[]) : []) {
      if (b.type === 'text') kinds.push('text');
      else if (b.type === 'tool_use') kinds.push(`call:${b.name}`);
      else if (b.type === 'tool_result') kinds.push(`result:${b.tool_use_id}`);
    }
    for (const c of (m.tool_calls ?? []) as Obj[]) kinds.push(`call:${c.function.name}`);
    return [m.role, kinds];
  });
}

async function ask(model: string, body: Obj, stream: boolean): Promise<{ item: Obj; evs: Ev[]; up: Obj | undefined; body: Obj }> {
  await h.gw.clearSim();
  const r = await h.post({ model, stream, ...body });
  if (r.status !== 200) throw new Error(`status ${r.status}: ${r.text.slice(0, 400)}`);
  const evs = stream ? h.sse(r.text) : [];
  const response = stream ? evs.at(-1)?.data.response : JSON.parse(r.text);
  const [up] = await upstreamCalls(h.gw);
  const item = (response.output as Obj[]).find((o) => o.type !== 'message' && o.type !== 'reasoning')!;
  return { item, evs, up, body: response };
}

const names = (evs: Ev[]): string[] => evs.map((e) => e.event!);

for (const { model, path } of UPSTREAMS) {
  for (const stream of [false, true]) {
    const how = `${model} (${path}), ${stream ? 'streamed' : 'JSON'}`;

    t.test(`shell tool → shell_call item, output back as a tool result: ${how}`, async (t) => {
      const { item, evs, up, body } = await ask(model, { input: 'run it', tools: [{ type: 'shell' }], tool_choice: 'required' }, stream);
      t.equal(up?.path, path);
      t.match(offered(up).get('shell'), { properties: { commands: { type: 'array' } }, required: ['commands'] }, 'offered as the function shell');
      t.match(item, { type: 'shell_call', status: 'completed', action: { commands: ['echo gateway-tool-ok'], timeout_ms: null, max_output_length: null } });
      t.match(item.id, /^sh_/);
      t.type(item.call_id, 'string');
      t.equal(body.status, 'completed');
      if (stream) {
        t.same(names(evs).filter((n) => n.startsWith('response.shell_call_command')), ['response.shell_call_command.added', 'response.shell_call_command.delta', 'response.shell_call_command.done']);
        t.equal(evs.find((e) => e.event === 'response.shell_call_command.done')?.data.command, 'echo gateway-tool-ok');
        t.match(evs.find((e) => e.event === 'response.output_item.added' && e.data.item.type === 'shell_call')?.data.item, { status: 'in_progress', call_id: item.call_id });
      }
      const output = { type: 'shell_call_output', call_id: item.call_id, output: [{ stdout: 'gateway-tool-ok\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } }] };
      const next = await ask(model, { input: [{ role: 'user', content: 'run it' }, item, output], tools: [{ type: 'shell' }] }, stream);
      t.same(shape(next.up).slice(-2).map(([role, kinds]) => [role, kinds.map((k) => k.replace(item.call_id, 'ID'))]), path === '/v1/messages' ? [['assistant', ['call:shell']], ['user', ['result:ID']]] : [['assistant', ['call:shell']], ['tool', ['result:ID']]]);
      t.match(JSON.stringify(next.up?.body.messages), /exit code 0\\nstdout:\\ngateway-tool-ok/, 'the output as text');
      t.match(JSON.stringify(next.body.output), /Tool result received: exit code 0/, 'the model read it');
    });

    t.test(`apply_patch tool → apply_patch_call item: ${how}`, async (t) => {
      const { item, evs, up } = await ask(model, { input: 'make the file', tools: [{ type: 'apply_patch' }], tool_choice: 'required' }, stream);
      t.match(offered(up).get('apply_patch'), { properties: { type: { enum: ['create_file', 'update_file', 'delete_file'] }, path: {}, diff: {} } });
      t.match(item, { type: 'apply_patch_call', status: 'completed', operation: { type: 'create_file', path: PATCH_FILE, diff: `+${PATCH_LINE}\n` } });
      t.match(item.id, /^apc_/);
      if (stream) {
        t.equal(evs.find((e) => e.event === 'response.apply_patch_call_operation_diff.done')?.data.diff, `+${PATCH_LINE}\n`);
        t.ok(names(evs).includes('response.apply_patch_call_operation_diff.delta'));
      }
      const output = { type: 'apply_patch_call_output', call_id: item.call_id, status: 'completed', output: 'Created gateway-patch-ok.txt' };
      const next = await ask(model, { input: [{ role: 'user', content: 'make the file' }, item, output], tools: [{ type: 'apply_patch' }] }, stream);
      t.match(JSON.stringify(next.up?.body.messages), /completed\\nCreated gateway-patch-ok.txt/);
      t.match(JSON.stringify(next.body.output), /Tool result received: completed/);
    });

    t.test(`Codex's custom apply_patch → custom_tool_call with the raw patch (F30): ${how}`, async (t) => {
      const custom = { type: 'custom', name: 'apply_patch', description: 'Edit files', format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch hunk+ end_patch' } };
      const { item, evs } = await ask(model, { input: 'use apply_patch', tools: [custom] }, stream);
      t.match(item, { type: 'custom_tool_call', name: 'apply_patch', status: 'completed' });
      t.equal(item.input, DEMO_PATCH, 'the patch text itself, not JSON-wrapped');
      if (stream) t.equal(evs.find((e) => e.event === 'response.custom_tool_call_input.done')?.data.input, DEMO_PATCH);
    });

    t.test(`namespace members: flattened upstream, namespace restored (F31): ${how}`, async (t) => {
      const fn = (name: string): Obj => ({ type: 'function', name, description: name, parameters: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } });
      const longNs = `mcp__${'very_long_server_name_'.repeat(3)}__`;
      const tools = [
        { type: 'namespace', name: 'multi_agent_v1', description: 'agents', tools: [fn('spawn_agent'), fn('search')] },
        { type: 'namespace', name: 'mcp__docs__', description: 'docs', tools: [fn('search'), fn('docs.read:v2')] },
        { type: 'namespace', name: longNs, description: 'long', tools: [fn('lookup_everything_about_it')] },
        fn('exec_command'),
      ];
      const { item, up } = await ask(model, { input: 'call spawn_agent', tools }, stream);
      const flat = [...offered(up).keys()];
      t.same(flat.slice(0, 4).sort(), ['mcp__docs__docs_read_v2', 'mcp__docs__search', 'multi_agent_v1__search', 'multi_agent_v1__spawn_agent']);
      t.match(flat[4], /^mcp__very_long_server_name_very_long_server_name_very_l_[0-9a-f]{8}$/, 'a long name cut to 64 with a hash');
      t.ok(flat.every((n) => /^[A-Za-z0-9_-]{1,64}$/.test(n)), 'every name one Chat and Messages take');
      t.match(item, { type: 'function_call', name: 'spawn_agent', namespace: 'multi_agent_v1', status: 'completed' });
      const output = { type: 'function_call_output', call_id: item.call_id, output: 'agent started' };
      const next = await ask(model, { input: [{ role: 'user', content: 'call spawn_agent' }, item, output], tools }, stream);
      t.match(shape(next.up).at(-2), ['assistant', ['call:multi_agent_v1__spawn_agent']], 'history names the flattened tool');
    });
  }

  t.test(`Codex's history order (call, assistant text, output) is valid upstream: ${model}`, async (t) => {
    const tools = [{ type: 'function', name: 'exec_command', parameters: { type: 'object', properties: { cmd: { type: 'string' } } } }];
    const fc = (id: string): Obj => ({ type: 'function_call', id: `fc_${id}`, status: 'completed', name: 'exec_command', arguments: '{"cmd":"ls"}', call_id: id });
    const out = (id: string): Obj => ({ type: 'function_call_output', call_id: id, output: `out ${id}` });
    const say = (text: string): Obj => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] });
    const input = [{ role: 'user', content: 'go' }, fc('c1'), say('Running ls.'), out('c1'), fc('c2'), fc('c3'), out('c2'), say('One more.'), out('c3'), { role: 'user', content: 'thanks' }];
    const { up } = await ask(model, { input, tools }, false);
    const want: [string, string[]][] =
      path === '/v1/messages'
        ? [['user', ['text']], ['assistant', ['text', 'call:exec_command']], ['user', ['result:c1']], ['assistant', ['text', 'call:exec_command', 'call:exec_command']], ['user', ['result:c2', 'result:c3', 'text']]]
        : [['user', ['text']], ['assistant', ['text', 'call:exec_command']], ['tool', ['result:c1']], ['assistant', ['text', 'call:exec_command', 'call:exec_command']], ['tool', ['result:c2']], ['tool', ['result:c3']], ['user', ['text']]];
    t.same(shape(up), want, 'each output follows the assistant message that called it');
  });

  t.test(`shell and apply_patch together with function tools, tool_choice by type: ${model}`, async (t) => {
    const { item, up } = await ask(model, { input: 'x', tools: [{ type: 'function', name: 'f' }, { type: 'shell' }, { type: 'apply_patch' }], tool_choice: { type: 'apply_patch' } }, false);
    t.same([...offered(up).keys()], ['f', 'shell', 'apply_patch']);
    t.equal(item.type, 'apply_patch_call');
  });
}

t.test('a custom tool inside a namespace comes back as a custom_tool_call with its namespace', async (t) => {
  const tools = [{ type: 'namespace', name: 'editor', description: 'e', tools: [{ type: 'custom', name: 'apply_patch', description: 'patch' }] }];
  for (const { model } of UPSTREAMS) {
    const { item, up } = await ask(model, { input: 'patch', tools }, true);
    t.ok(offered(up).has('editor__apply_patch'), model);
    t.match(item, { type: 'custom_tool_call', name: 'apply_patch', namespace: 'editor', input: 'x' }, model);
  }
});

t.test('tool_choice naming a namespace member (with or without its namespace) names the flattened function', async (t) => {
  const tools = [{ type: 'namespace', name: 'multi_agent_v1', description: 'a', tools: [{ type: 'function', name: 'wait_agent' }, { type: 'function', name: 'spawn_agent' }] }];
  for (const choice of [{ type: 'function', name: 'spawn_agent', namespace: 'multi_agent_v1' }, { type: 'function', name: 'spawn_agent' }]) {
    const { item, up } = await ask('openai/gpt-5', { input: 'x', tools, tool_choice: choice }, false);
    t.same(up?.body.tool_choice, { type: 'function', function: { name: 'multi_agent_v1__spawn_agent' } }, JSON.stringify(choice));
    t.match(item, { name: 'spawn_agent', namespace: 'multi_agent_v1' });
  }
});

t.test('a function named like the shell tool beside it is refused', async (t) => {
  const r = await h.post({ model: 'openai/gpt-5', input: 'x', tools: [{ type: 'shell' }, { type: 'function', name: 'shell' }] });
  t.equal(r.status, 400);
  t.match(JSON.parse(r.text).error, { param: 'tools[1].name', message: /shell tool/ });
});

for (const stream of [false, true]) {
  t.test(`a Responses deployment gets namespace tools whole and its namespaced call comes back with its namespace (F31), ${stream ? 'streamed' : 'JSON'}`, async (t) => {
    const member = (name: string): Obj => ({ type: 'function', name, parameters: { type: 'object', properties: {} } });
    const tools = [
      { type: 'namespace', name: 'multi_agent_v1', description: 'agents', tools: [member('spawn_agent')] },
      { type: 'namespace', name: 'mcp__docs__', description: 'docs', tools: [member('spawn')] },
      { type: 'tool_search', execution: 'client', parameters: {} },
      { type: 'local_shell' },
    ];
    const { item, up } = await ask('openai/gpt-5-mini', { input: 'call spawn_agent', tools }, stream);
    t.same(up?.body.tools, tools.slice(0, 2), 'namespaces forwarded whole; the ignored hosted tools (tool_search, local_shell: F32) dropped');
    t.match(item, { type: 'function_call', name: 'spawn_agent', namespace: 'multi_agent_v1' });
  });
}

t.test('a standalone output (a name, no call_id: Codex task input, F33) reaches every upstream as a user message', async (t) => {
  const standalone = { type: 'function_call_output', id: 'fco_1', name: 'automation_update', namespace: 'codex_app', output: 'Automation: Daily brief' };
  for (const { model, path } of [...UPSTREAMS, { model: 'openai/gpt-5-mini', path: '/v1/responses' }]) {
    await h.gw.clearSim();
    const r = await h.post({ model, input: [{ role: 'user', content: 'hello' }, standalone] });
    t.equal(r.status, 200, `${model}: ${r.status === 200 ? 'accepted' : r.text.slice(0, 300)}`);
    const [up] = await upstreamCalls(h.gw);
    t.equal(up?.path, path);
    const last = ((up?.body.messages ?? up?.body.input) as Obj[]).at(-1);
    t.equal(last?.role, 'user', `${model}: the last upstream message is the user's`);
    t.match(JSON.stringify(last?.content), /\[Output of the codex_app.automation_update tool\]\\nAutomation: Daily brief/);
  }
  const orphan = await h.post({ model: 'openai/gpt-5', input: [{ role: 'user', content: 'hello' }, { type: 'function_call_output', output: 'x' }] });
  t.equal(orphan.status, 400, 'an output with neither call_id nor name is still refused');
  t.equal(JSON.parse(orphan.text).error.param, 'input[1].call_id');
});
