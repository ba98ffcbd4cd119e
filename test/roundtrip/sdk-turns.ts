// One conversation turn per client API, driven with the official SDK exactly as its docs show: ask,
// take what the SDK (or its helper) returns, push it into the history unchanged, answer each client
// tool call, add the next user turn. `next` then sends that history as the following turn.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export type ClientApi = 'messages' | 'chat' | 'responses';
/** which SDK call produced the answer (`create`, or a helper that adds fields of its own) */
export type Helper = 'create' | 'helper';

export interface Clients {
  openai: OpenAI;
  anthropic: Anthropic;
}

export interface Turn {
  /** the history to send back: the first turn, the answer as the SDK returned it, tool results, the next question */
  history: Obj[];
  /** what the answer held (for the report of a failing case) */
  shape: string;
}

const Q1 = 'Check the weather in Paris, then tell me';
const Q2 = 'Thanks. And tomorrow?';

/** strict tools (the parse helpers parse only those, and add `parsed_arguments` for them) */
const STRICT_PARAMETERS = { type: 'object', properties: {}, required: [], additionalProperties: false };

function chatTools(names: string[], strict = false): OpenAI.Chat.ChatCompletionTool[] {
  return names.map((name) => ({ type: 'function', function: { name, description: `the ${name} tool`, parameters: strict ? STRICT_PARAMETERS : { type: 'object', properties: {} }, ...(strict ? { strict } : {}) } }));
}

function messagesTools(names: string[]): Anthropic.Tool[] {
  return names.map((name) => ({ name, description: `the ${name} tool`, input_schema: { type: 'object', properties: {} } }));
}

function responsesTools(names: string[], strict = false): OpenAI.Responses.FunctionTool[] {
  return names.map((name) => ({ type: 'function', name, description: `the ${name} tool`, parameters: strict ? STRICT_PARAMETERS : { type: 'object', properties: {} }, strict }));
}

async function chatTurn(c: Clients, model: string, stream: boolean, helper: Helper, tools: string[]): Promise<Turn> {
  const history: Obj[] = [{ role: 'user', content: Q1 }];
  const params = { model, messages: history as OpenAI.Chat.ChatCompletionMessageParam[], ...(tools.length > 0 ? { tools: chatTools(tools, helper === 'helper') } : {}) };
  let message: Obj;
  if (stream) {
    message = helper === 'helper'
      ? (await c.openai.chat.completions.stream(params).finalChatCompletion()).choices[0]!.message
      : await accumulateChat(c.openai, params);
  } else if (helper === 'helper') {
    // parse() throws on a cut answer (its documented behaviour): then the plain answer is used
    message = await c.openai.chat.completions.parse(params).then((r) => r.choices[0]!.message, () => c.openai.chat.completions.create(params).then((r) => r.choices[0]!.message));
  } else {
    message = (await c.openai.chat.completions.create(params)).choices[0]!.message;
  }
  history.push(message);
  for (const call of (message.tool_calls ?? []) as Obj[]) history.push({ role: 'tool', tool_call_id: call.id, content: 'sunny' });
  history.push({ role: 'user', content: Q2 });
  return { history, shape: `chat message {${Object.keys(message).join(',')}} calls=${(message.tool_calls ?? []).length}` };
}

/** A streamed answer read chunk by chunk and rebuilt as the ChatCompletionStream helper would. */
async function accumulateChat(openai: OpenAI, params: Obj): Promise<Obj> {
  const runner = openai.chat.completions.stream(params as Parameters<typeof openai.chat.completions.stream>[0]);
  for await (const _chunk of runner) {
    // the chunks themselves are what a UI shows; the snapshot is what goes back
  }
  return (await runner.finalMessage()) as unknown as Obj;
}

async function messagesTurn(c: Clients, model: string, stream: boolean, helper: Helper, tools: string[]): Promise<Turn> {
  const history: Obj[] = [{ role: 'user', content: Q1 }];
  const params = { model, max_tokens: 1024, messages: history as Anthropic.MessageParam[], ...(tools.length > 0 ? { tools: messagesTools(tools) } : {}) };
  let message: Obj;
  if (stream) message = await c.anthropic.messages.stream(params).finalMessage();
  else if (helper === 'helper') message = await c.anthropic.messages.parse(params);
  else message = await c.anthropic.messages.create(params);
  history.push({ role: 'assistant', content: message.content });
  const results = (message.content as Obj[]).filter((b) => b.type === 'tool_use').map((b) => ({ type: 'tool_result', tool_use_id: b.id, content: 'sunny' }));
  history.push({ role: 'user', content: [...results, { type: 'text', text: Q2 }] });
  return { history, shape: `content [${(message.content as Obj[]).map((b) => b.type).join(',')}] stop=${message.stop_reason}` };
}

async function responsesTurn(c: Clients, model: string, stream: boolean, helper: Helper, tools: string[]): Promise<Turn> {
  const history: Obj[] = [{ role: 'user', content: Q1 }];
  const params = { model, input: history as OpenAI.Responses.ResponseInput, ...(tools.length > 0 ? { tools: responsesTools(tools, helper === 'helper') } : {}) };
  let response: Obj;
  if (stream) response = await c.openai.responses.stream(params).finalResponse();
  else if (helper === 'helper') response = await c.openai.responses.parse(params);
  else response = await c.openai.responses.create(params);
  history.push(...(response.output as Obj[]));
  for (const item of response.output as Obj[]) {
    if (item.type === 'function_call') history.push({ type: 'function_call_output', call_id: item.call_id, output: 'sunny' });
  }
  history.push({ role: 'user', content: Q2 });
  return { history, shape: `output [${(response.output as Obj[]).map((o) => o.type).join(',')}] status=${response.status}` };
}

export function firstTurn(api: ClientApi, c: Clients, model: string, stream: boolean, helper: Helper, tools: string[]): Promise<Turn> {
  switch (api) {
    case 'chat':
      return chatTurn(c, model, stream, helper, tools);
    case 'messages':
      return messagesTurn(c, model, stream, helper, tools);
    case 'responses':
      return responsesTurn(c, model, stream, helper, tools);
  }
}

/** Sends the history as the next turn (streamed or not; on Messages also to count_tokens); resolves when the gateway accepted it. */
export async function nextTurn(api: ClientApi, c: Clients, model: string, stream: boolean, history: Obj[], tools: string[]): Promise<void> {
  switch (api) {
    case 'chat': {
      const params = { model, messages: history as OpenAI.Chat.ChatCompletionMessageParam[], ...(tools.length > 0 ? { tools: chatTools(tools) } : {}) };
      if (stream) await c.openai.chat.completions.stream(params).finalChatCompletion();
      else await c.openai.chat.completions.create(params);
      return;
    }
    case 'messages': {
      const params = { model, max_tokens: 1024, messages: history as Anthropic.MessageParam[], ...(tools.length > 0 ? { tools: messagesTools(tools) } : {}) };
      if (stream) await c.anthropic.messages.stream(params).finalMessage();
      else await c.anthropic.messages.create(params);
      // count_tokens validates the same history, then answers 404 by design (no authoritative count)
      await c.anthropic.messages.countTokens({ model, messages: params.messages, ...(params.tools ? { tools: params.tools } : {}) }).catch((e: unknown) => {
        if (!(e instanceof Anthropic.NotFoundError && /Token counting is not available/.test(e.message))) throw e;
      });
      return;
    }
    case 'responses': {
      const params = { model, input: history as OpenAI.Responses.ResponseInput, ...(tools.length > 0 ? { tools: responsesTools(tools) } : {}) };
      if (stream) await c.openai.responses.stream(params).finalResponse();
      else await c.openai.responses.create(params);
    }
  }
}
