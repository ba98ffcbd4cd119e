// LangChain's chat models (`@langchain/openai` ChatOpenAI, `@langchain/anthropic` ChatAnthropic),
// driven as their docs show, against the gateway. Configured only through the environment:
// OPENAI_BASE_URL (`<gateway>/v1`) and OPENAI_API_KEY for ChatOpenAI, ANTHROPIC_BASE_URL (the
// gateway, no path) and ANTHROPIC_API_KEY for ChatAnthropic; LANGSMITH_TRACING=false.
// The tool loop: bindTools, invoke, run each tool call (tool.invoke gives the ToolMessage), then the
// next turn streamed and its chunks concatenated.
// Argument: JSON `{provider, model}` (provider: "openai" or "anthropic").
// Prints one JSON line: the tool calls executed, the first turn's tool calls, the final text and usage.
import { ChatAnthropic } from '@langchain/anthropic';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';

const { provider, model } = JSON.parse(process.argv[2]);
const llm = provider === 'openai' ? new ChatOpenAI({ model, maxRetries: 0 }) : new ChatAnthropic({ model, maxRetries: 0 });

const calls = [];
const getWeather = tool(
  async ({ city }) => {
    calls.push(city);
    return `sunny in ${city}`;
  },
  { name: 'get_weather', description: 'Current weather for a city', schema: z.object({ city: z.string() }) },
);
const withTools = llm.bindTools([getWeather]);

const messages = [new HumanMessage('What is the weather in Oslo? Use get_weather.')];
const first = await withTools.invoke(messages);
messages.push(first);
for (const call of first.tool_calls ?? []) messages.push(await getWeather.invoke(call));

let final;
for await (const chunk of await withTools.stream(messages)) final = final === undefined ? chunk : final.concat(chunk);
console.log(JSON.stringify({ calls, toolCalls: first.tool_calls, final: final?.text, usage: final?.usage_metadata }));
