// The benchmark's scenarios, in the order the runner runs and prints them (`run.ts`; `--list` shows
// them): one file a scenario, listed here. A scenario file other work adds is loaded when its
// compiled file exists.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Scenario } from './scenario.js';
import { scenario as messagesJson } from './messages-json.js';
import { scenario as messagesStream } from './messages-stream.js';
import { scenario as chatToAnthropicJson } from './chat-to-anthropic-json.js';
import { scenario as chatToAnthropicStream } from './chat-to-anthropic-stream.js';
import { scenario as chatToOpenaiStream } from './chat-to-openai-stream.js';
import { scenario as messagesToChatStream } from './messages-to-chat-stream.js';
import { scenarios as chatChatJson } from './chat-chat-json.js';
import { scenarios as chatChatSse } from './chat-chat-sse.js';
import { scenarios as respRespSse } from './responses-responses-sse.js';
import { scenarios as msgMsgSse } from './messages-messages-sse.js';
import { scenarios as respRespJson } from './responses-responses-json.js';
import { scenarios as msgMsgJson } from './messages-messages-json.js';
import { scenario as largeBody } from './large-body.js';
import { scenario as slowStreams } from './slow-streams.js';
import { scenario as storeLedger } from './store-ledger.js';
import { scenario as replicaStore } from './replica-store.js';
import { scenario as workers } from './workers.js';
import { scenario as searchLoop } from './search-loop.js';
import { loadUploadScenario } from './transcription-hook.js';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

/** Scenarios whose files other work adds: run when their compiled file exists (see transcription-hook.ts). */
const OPTIONAL_SCENARIOS = ['./transcription-upload.js'];

export async function loadScenarios(): Promise<Scenario[]> {
  const list: Scenario[] = [...chatChatJson, ...chatChatSse, ...respRespSse, ...msgMsgSse, ...respRespJson, ...msgMsgJson, messagesJson, messagesStream, chatToAnthropicJson, chatToAnthropicStream, chatToOpenaiStream, messagesToChatStream, largeBody, slowStreams, storeLedger, replicaStore, workers, searchLoop];
  for (const rel of OPTIONAL_SCENARIOS) if (existsSync(here(rel))) list.push(await loadUploadScenario(here(rel)));
  return list;
}
