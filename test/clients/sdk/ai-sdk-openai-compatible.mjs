// The AI SDK's OpenAI-compatible provider (`@ai-sdk/openai-compatible` with `ai`), driven as its docs
// show, against the gateway: createOpenAICompatible({ baseURL, apiKey }) with the values a user
// would keep in OPENAI_BASE_URL (`<gateway>/v1`) and OPENAI_API_KEY. One tool, a step limit of 3:
// generateText, then streamText.
// Argument: JSON `{model}`. Prints one JSON line: the tool calls executed, both texts, the usage.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';

const { model } = JSON.parse(process.argv[2]);
const gateway = createOpenAICompatible({ name: 'gateway', baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY, includeUsage: true });

const calls = [];
const tools = {
  get_weather: tool({
    description: 'Current weather for a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      calls.push(city);
      return `sunny in ${city}`;
    },
  }),
};

const generated = await generateText({ model: gateway(model), tools, stopWhen: stepCountIs(3), prompt: 'What is the weather in Oslo? Use get_weather.' });
const streamed = streamText({ model: gateway(model), tools, stopWhen: stepCountIs(3), prompt: 'And in Paris? Use get_weather.' });
const streamedText = await streamed.text;
console.log(JSON.stringify({
  calls,
  text: generated.text,
  finishReason: generated.finishReason,
  steps: generated.steps.length,
  usage: generated.totalUsage,
  streamedText,
  streamedFinishReason: await streamed.finishReason,
  streamedUsage: await streamed.totalUsage,
}));
