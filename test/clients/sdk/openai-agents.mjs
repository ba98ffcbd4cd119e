// The OpenAI Agents SDK (`@openai/agents`), driven as its docs show, against the gateway. Configured
// only through the environment: OPENAI_BASE_URL (`<gateway>/v1`) and OPENAI_API_KEY, read by the
// `openai` client the SDK creates; OPENAI_AGENTS_DISABLE_TRACING=1 keeps traces from being exported.
// An agent with one function tool runs a task with run(), then another with run({ stream: true }).
// Argument: JSON `{model, api}` (api: "responses", the SDK's default, or "chat_completions").
// Prints one JSON line: the tool calls the agent executed and both final outputs.
import { Agent, run, setOpenAIAPI, tool } from '@openai/agents';
import { z } from 'zod';

const { model, api } = JSON.parse(process.argv[2]);
if (api === 'chat_completions') setOpenAIAPI('chat_completions');

const calls = [];
const getWeather = tool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    calls.push(city);
    return `sunny in ${city}`;
  },
});
const agent = new Agent({ name: 'Weather', instructions: 'Answer questions about the weather with get_weather.', model, tools: [getWeather] });

const plain = await run(agent, 'What is the weather in Oslo? Use get_weather.');
const streamed = await run(agent, 'And in Paris? Use get_weather.', { stream: true });
let streamedText = '';
for await (const delta of streamed.toTextStream()) streamedText += delta;
await streamed.completed;
console.log(JSON.stringify({ calls, final: plain.finalOutput, streamedFinal: streamed.finalOutput, streamedText }));
