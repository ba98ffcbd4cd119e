// A `response.created` frame with the instructions and tools texts an earlier stream's created frame
// had (remembered: echoed-texts.ts) is read with placeholders there (EchoedRequest.createdKnown),
// not parsed whole. It must accept only what the strict parser accepts and give the very object it
// builds, and leave the stream's decoder as the strict path leaves it: checked over every recorded
// Responses stream (fixtures/ and ../shared's) and the bench's, each echoing several instructions
// and tools (Codex-sized among them), with seeded mutations of the created frame and near misses
// (instructions one character off, tools reordered or spaced, a key moved); and through the decode
// (through the decode chain: echoed-texts-decoder.test.ts)
import t from 'tap';
import type { JsonObject } from '../../../lib/chunks.js';
import { EchoedRequest } from '../../../lib/dialects/openai-responses/echoed-request.js';
import { copyJson, KNOWN_INSTRUCTIONS, KNOWN_TOOLS } from '../../../lib/dialects/openai-responses/echoed-texts.js';
import { responsesDecoder } from '../../../lib/dialects/openai-responses/events.js';
import { parseResponseFrame } from '../../../lib/dialects/openai-responses/response-frame.js';
import { parseStrict } from '../../../lib/json/strict-parse.js';
import { label, sameJson, strictValue as strict } from '../../json/json-assert.js';
import { prng } from '../../json/json-gen.js';
import { createdOf, forget, mutate, nearMisses, STREAMS } from './echo-streams.js';

t.test('a created frame read with remembered texts is the object the strict parser builds', async (t) => {
  const rand = prng(0x13c0);
  let read = 0;
  let refused = 0;
  let misses = 0;
  let ownRead = 0;
  let failures = 0;
  const fail = (message: string): void => {
    if (failures++ < 10) t.fail(message);
  };
  for (const s of STREAMS) {
    const created = createdOf(s);
    forget();
    // what the decoder remembers of created, read strictly
    responsesDecoder().sse({ event: 'response.created', data: created });
    const ref0 = parseStrict(created) as JsonObject;
    const wantTools = Array.isArray((ref0.response as JsonObject).tools) && ((ref0.response as JsonObject).tools as unknown[]).length > 0;
    const again = new EchoedRequest().createdKnown('response.created', created);
    // (remembered when read strictly with its members' places: tools echoed, the sequence number before the Response)
    if (again === null) {
      if (wantTools && parseResponseFrame('response.created', created) !== null) fail(`${s.name}: its own created frame not read with the texts remembered`);
    } else {
      ownRead++;
      // each stream its own tools value
      const other = new EchoedRequest().createdKnown('response.created', created)!;
      if (wantTools && (again.response as JsonObject).tools === (other.response as JsonObject).tools) fail(`${s.name}: tools value shared`);
    }
    const near = nearMisses(created);
    misses += near.length;
    for (const data of [created, ...near, ...Array.from({ length: 120 }, () => mutate(created, rand))]) {
      const echoed = new EchoedRequest();
      const fast = echoed.createdKnown('response.created', data);
      const ref = strict(data) as JsonObject | undefined;
      if (ref === undefined) refused++;
      if (fast === null) continue;
      read++;
      if (ref === undefined) {
        fail(`${s.name}: read what the strict parser refuses: ${label(data.slice(0, 300))}`);
        continue;
      }
      if (!sameJson(fast, ref)) fail(`${s.name}: a different object for ${label(data.slice(0, 300))}`);
      // the stream's state: created's kept instructions text, and its terminal frame read as strictly
      const instructions = (ref.response as JsonObject).instructions;
      if (echoed.span !== undefined && strict(data.slice(echoed.span[0], echoed.span[1])) !== instructions) fail(`${s.name}: the kept text is not the instructions: ${label(data.slice(0, 300))}`);
      if (typeof instructions === 'string' && echoed.span === undefined) fail(`${s.name}: no kept text for string instructions`);
    }
  }
  forget();
  t.equal(failures, 0, 'no disagreement');
  t.ok(read > 1500, `${read} created frames read with remembered texts (each equal to the strict parse)`);
  t.ok(refused > 1500, `${refused} mutated frames the strict parser refuses, none read`);
  t.ok(misses > 500, `${misses} near misses`);
  t.ok(ownRead >= 20, `${ownRead} streams' own created frames read with their texts remembered`);
});

t.test('a created frame with only one of the texts remembered; decoys elsewhere in the frame', async (t) => {
  let checked = 0;
  for (const s of STREAMS.filter((x) => x.name.endsWith('with tools'))) {
    const created = createdOf(s);
    const response = (parseStrict(created) as JsonObject).response as JsonObject;
    for (const keep of ['instructions', 'tools'] as const) {
      forget();
      responsesDecoder().sse({ event: 'response.created', data: created });
      (keep === 'instructions' ? KNOWN_TOOLS : KNOWN_INSTRUCTIONS).clear();
      const frames = [
        created,
        ...nearMisses(created),
        // the texts in a member before the instructions and one after the tools, the real ones other values
        JSON.stringify({ type: 'response.created', sequence_number: 0, response: { decoy: { instructions: response.instructions!, tools: response.tools! }, ...response, instructions: 'other', tools: [] } }),
        JSON.stringify({ type: 'response.created', sequence_number: 0, response: { ...response, instructions: null, tools: [{ type: 'web_search' }], metadata: { instructions: response.instructions!, tools: response.tools! } } }),
        JSON.stringify({ type: 'response.created', sequence_number: 0, response: { ...response, metadata: { tools: response.tools! } } }),
      ];
      for (const data of frames) {
        checked++;
        const echoed = new EchoedRequest();
        const fast = echoed.createdKnown('response.created', data);
        if (fast !== null && !sameJson(fast, parseStrict(data))) t.fail(`${s.name} (${keep} remembered): another object for ${label(data.slice(0, 300))}`);
        // then the terminal frame, with the texts this created left
        const terminal = s.frames.find(([event]) => event === 'response.completed' || event === 'response.incomplete');
        if (fast !== null && terminal !== undefined) {
          const end = echoed.terminal(terminal[0], terminal[1]);
          if (end !== null && !sameJson(end, parseStrict(terminal[1]))) t.fail(`${s.name}: the terminal frame read as another object`);
        }
      }
      if (parseResponseFrame('response.created', created) !== null && new EchoedRequest().createdKnown('response.created', created) === null) t.fail(`${s.name}: not read with its ${keep} remembered`);
    }
  }
  forget();
  t.ok(checked >= 200, `${checked} frames`);
});

/** the events as text to compare: every member, the native frame's data, object, through and kept included */
t.test('copyJson: the strict parser\'s object, its own copy', async (t) => {
  const text = '{"b":1,"a":[{"__proto__":{"x":-0}},2,"s",null,true],"2":{},"1":[]}';
  const value = parseStrict(text);
  const copy = copyJson(value);
  t.ok(sameJson(copy, value));
  t.ok(sameJson(copy, parseStrict(text)));
  t.not(copy, value);
  t.not((copy as JsonObject).a, (value as JsonObject).a);
  t.ok(Object.hasOwn(((copy as JsonObject).a as JsonObject[])[0]!, '__proto__'), '__proto__ an own member');
});
