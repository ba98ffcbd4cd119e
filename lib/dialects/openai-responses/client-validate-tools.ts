// The `tools` and `tool_choice` of a `POST /v1/responses` body: function and custom tools (names
// unique; a namespace member's name unique in its namespace, and its flattened name unique too:
// client-tools.ts), client-executed shell / apply_patch, hosted web_search, and the hosted tools
// accepted and ignored. Part of client-validate.ts.
import type { JsonObject, JsonValue } from '../../chunks.js';
import { invalid } from '../../errors.js';
import { arr, bool, jsonBytes, obj, oneOf, shorten, str } from '../../validate/checks.js';
import { given } from '../../openai/params.js';
import type { Scan } from './client-validate-input.js';
import { flatName, type ClientTool } from './client-tools.js';

/** Hosted tools accepted and ignored (decisions §9.10), with their `_preview` and dated variants. */
const IGNORED_TOOL = /^(?:file_search|code_interpreter|computer_use|computer|image_generation|mcp|tool_search|local_shell)(?:_preview)?(?:_\d{4}_\d{2}_\d{2})?$/;
const WEB_SEARCH_TOOL = /^web_search(?:_preview)?(?:_\d{4}_\d{2}_\d{2})?$/;
/** OpenAI's rule for function names */
const NAME = /^[A-Za-z0-9_.:-]{1,128}$/;

/** The tools a body declares, as ResponsesFacts keeps them. */
export interface Tools {
  functions: JsonObject[];
  customTools: Set<string>;
  clientTools: { shell: boolean; applyPatch: boolean };
  webSearch: JsonObject[];
  /** every tool the model may call, by the name a Chat or Messages upstream calls it (client-tools.ts) */
  callable: Map<string, ClientTool>;
}

export function emptyTools(): Tools {
  return { functions: [], customTools: new Set(), clientTools: { shell: false, applyPatch: false }, webSearch: [], callable: new Map() };
}

export function validateTools(v: JsonValue, scan: Scan): Tools {
  const out = emptyTools();
  const claim = (flat: string, entry: ClientTool, path: string): void => {
    const other = out.callable.get(flat);
    if (other !== undefined) {
      const what = other.kind === 'shell' || other.kind === 'apply_patch' ? `the ${other.kind} tool` : 'another tool';
      throw invalid(path, `"${shorten(flat)}" is already the name of ${what}; tool names (a namespace member's as <namespace>__<name>) must be unique`);
    }
    out.callable.set(flat, entry);
  };
  const walk = (list: JsonValue[], at: string, namespace: string | undefined): void => {
    for (let i = 0; i < list.length; i++) {
      const path = `${at}[${i}]`;
      const tool = obj(list[i], path);
      const type = str(tool.type, `${path}.type`, 1);
      if (type === 'function' || type === 'custom') {
        const name = str(tool.name, `${path}.name`, 1);
        if (!NAME.test(name)) throw invalid(`${path}.name`, `must be 1 to 128 letters, digits, underscores, dots, colons or dashes, got "${shorten(name)}"`);
        claim(flatName(name, namespace), namespace === undefined ? { kind: type, name, tool } : { kind: type, name, namespace, tool }, `${path}.name`);
        if (given(tool.description)) str(tool.description, `${path}.description`);
        if (type === 'function') {
          if (given(tool.parameters)) obj(tool.parameters, `${path}.parameters`);
          if (given(tool.strict)) bool(tool.strict, `${path}.strict`);
        } else {
          if (given(tool.format)) obj(tool.format, `${path}.format`);
          out.customTools.add(name);
        }
        out.functions.push(tool);
        scan.bytes += jsonBytes(tool);
      } else if (type === 'namespace' && namespace === undefined) {
        walk(arr(tool.tools, `${path}.tools`), `${path}.tools`, str(tool.name, `${path}.name`, 1));
      } else if (type === 'shell' || type === 'apply_patch') {
        claim(type, { kind: type, name: type }, path);
        if (type === 'shell') out.clientTools.shell = true;
        else out.clientTools.applyPatch = true;
      } else if (WEB_SEARCH_TOOL.test(type)) {
        out.webSearch.push(tool);
      } else if (!IGNORED_TOOL.test(type)) {
        throw invalid(`${path}.type`, `tool type "${shorten(type)}" is not supported. Supported: function, custom, namespace, shell, apply_patch, web_search (hosted); file_search, code_interpreter, computer_use, image_generation, mcp and tool_search are accepted and ignored`);
      }
    }
  };
  walk(arr(v, 'tools'), 'tools', undefined);
  return out;
}

const HOSTED_CHOICES: ReadonlySet<string> = new Set(['web_search', 'web_search_preview', 'file_search', 'code_interpreter', 'computer_use_preview', 'image_generation', 'mcp']);

export function validateToolChoice(v: JsonValue, functions: readonly JsonObject[], callable: ReadonlyMap<string, ClientTool>): void {
  if (typeof v === 'string') {
    const choice = oneOf(v, 'tool_choice', ['auto', 'none', 'required']);
    if (choice === 'required' && callable.size === 0) throw invalid('tool_choice', '"required" needs at least one function or custom tool in "tools"');
    return;
  }
  const choice = obj(v, 'tool_choice');
  const type = str(choice.type, 'tool_choice.type', 1);
  if (type === 'function' || type === 'custom') {
    const name = str(choice.name, 'tool_choice.name', 1);
    if (!functions.some((f) => f.name === name && f.type === type)) throw invalid('tool_choice.name', `"${shorten(name)}" is not the name of a ${type} tool in "tools"`);
    return;
  }
  if (type === 'allowed_tools') {
    oneOf(choice.mode, 'tool_choice.mode', ['auto', 'required']);
    arr(choice.tools, 'tool_choice.tools');
    return;
  }
  if (type === 'shell' || type === 'apply_patch') {
    if (!callable.has(type)) throw invalid('tool_choice.type', `"${type}" needs the ${type} tool in "tools"`);
    return;
  }
  if (!HOSTED_CHOICES.has(type)) throw invalid('tool_choice.type', `must be "function", "custom", "allowed_tools", "shell", "apply_patch" or a hosted tool type, got "${shorten(type)}"`);
}
