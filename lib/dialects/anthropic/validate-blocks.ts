// Content of one message: a string, or an array of blocks whose allowed types depend on the role
// (spec "Messages: roles and content blocks"). Assistant-only blocks live in validate-assistant-blocks.ts.
import { capabilityRejected, invalid } from '../../errors.js';
import type { JsonObject, JsonValue } from '../../chunks.js';
import { ASSISTANT_BLOCKS, assistantBlock } from './validate-assistant-blocks.js';
import {
  arr, bool, cacheControl, fields, jsonBytes, kind, obj, oneOf, rejectUnknown, shorten, str, typedObject, type Scan,
} from './validate-util.js';

export type Role = 'user' | 'assistant' | 'system';

const USER_BLOCKS = ['text', 'image', 'tool_result'] as const;
const SYSTEM_BLOCKS = ['text'] as const;
const TOOL_RESULT_BLOCKS = ['text', 'image', 'tool_reference'] as const;

const TEXT = fields('type', 'text', 'cache_control');
const TEXT_CITED = fields('type', 'text', 'cache_control', 'citations');
const IMAGE = fields('type', 'source', 'cache_control');
const URL_SOURCE = fields('type', 'url');
const BASE64_SOURCE = fields('type', 'media_type', 'data');
const TOOL_RESULT = fields('type', 'tool_use_id', 'content', 'is_error', 'toolset_name', 'cache_control');
const TOOL_REFERENCE = fields('type', 'tool_name', 'cache_control');
const MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;

/**
 * `content` of a message with `role`. A block array must be non-empty unless `emptyOk` (an
 * assistant message).
 */
export function validateContent(v: JsonValue | undefined, path: string, role: Role, scan: Scan, emptyOk: boolean): void {
  if (typeof v === 'string') {
    scan.bytes += Buffer.byteLength(v, 'utf8') + 2;
    return;
  }
  if (!Array.isArray(v)) {
    throw invalid(path, v === undefined ? 'required field is missing' : `must be a string or an array of content blocks, got ${kind(v)}`);
  }
  if (v.length === 0 && !emptyOk) throw invalid(path, 'must not be an empty array');
  for (let i = 0; i < v.length; i++) {
    const p = `${path}[${i}]`;
    const b = obj(v[i], p);
    const type = str(b.type, `${p}.type`, 1);
    if (role === 'assistant') {
      if (type === 'text') textBlock(b, p, true);
      else if (!assistantBlock(type, b, p, scan)) wrongType(type, p, role, ASSISTANT_BLOCKS);
      scan.bytes += jsonBytes(b);
    } else if (type === 'text') {
      textBlock(b, p, false);
      scan.bytes += jsonBytes(b);
    } else if (role === 'user' && type === 'image') {
      imageBlock(b, p, scan);
    } else if (role === 'user' && type === 'tool_result') {
      toolResultBlock(b, p, scan);
    } else {
      wrongType(type, p, role, role === 'user' ? USER_BLOCKS : SYSTEM_BLOCKS);
    }
  }
}

/** Top-level `system`: a string, or a non-empty array of text blocks. */
export function validateSystem(v: JsonValue, scan: Scan): void {
  if (Array.isArray(v) && v.length === 0) throw invalid('system', 'must be a string or a non-empty array of text blocks');
  if (typeof v !== 'string' && !Array.isArray(v)) {
    throw invalid('system', `must be a string or a non-empty array of text blocks, got ${kind(v)}`);
  }
  validateContent(v, 'system', 'system', scan, false);
}

function wrongType(type: string, path: string, role: Role, allowed: readonly string[]): never {
  if (type === 'document') {
    throw capabilityRejected(
      `${path}.type`,
      'document blocks are not supported. Remove the block, or send its text as a text block (or pages as image blocks)',
    );
  }
  throw invalid(`${path}.type`, `block type "${shorten(type)}" is not allowed in a ${role} message; allowed: ${allowed.join(', ')}`);
}

function textBlock(b: JsonObject, path: string, cited: boolean): void {
  rejectUnknown(b, cited ? TEXT_CITED : TEXT, path);
  str(b.text, `${path}.text`);
  cacheControl(b.cache_control, `${path}.cache_control`);
  if (cited && b.citations !== undefined && b.citations !== null) {
    const list = arr(b.citations, `${path}.citations`);
    for (let i = 0; i < list.length; i++) typedObject(list[i], `${path}.citations[${i}]`);
  }
}

function imageBlock(b: JsonObject, path: string, scan: Scan): void {
  rejectUnknown(b, IMAGE, path);
  cacheControl(b.cache_control, `${path}.cache_control`);
  const sp = `${path}.source`;
  const src = obj(b.source, sp);
  const type = str(src.type, `${sp}.type`, 1);
  if (type === 'url') {
    rejectUnknown(src, URL_SOURCE, sp);
    const url = str(src.url, `${sp}.url`, 1);
    if (!/^https?:\/\//i.test(url)) throw invalid(`${sp}.url`, 'must be an http:// or https:// URL');
  } else if (type === 'base64') {
    rejectUnknown(src, BASE64_SOURCE, sp);
    oneOf(src.media_type, `${sp}.media_type`, MEDIA_TYPES);
    str(src.data, `${sp}.data`, 1);
  } else if (type === 'file') {
    throw capabilityRejected(
      `${sp}.type`,
      'image sources of type "file" need the Files API, which this gateway does not implement. Send the image as "base64" or "url" instead',
    );
  } else {
    oneOf(type, `${sp}.type`, ['url', 'base64']);
  }
  scan.images++;
}

function toolResultBlock(b: JsonObject, path: string, scan: Scan): void {
  rejectUnknown(b, TOOL_RESULT, path);
  const id = str(b.tool_use_id, `${path}.tool_use_id`, 1);
  if (!scan.toolUseIds.has(id)) {
    throw invalid(
      `${path}.tool_use_id`,
      `"${shorten(id)}" matches no tool_use id of an earlier assistant message. ` +
        'Send the complete transcript: the assistant message with the tool_use, then the user tool_result',
    );
  }
  if (b.is_error !== undefined) bool(b.is_error, `${path}.is_error`);
  if (b.toolset_name !== undefined) str(b.toolset_name, `${path}.toolset_name`, 1);
  cacheControl(b.cache_control, `${path}.cache_control`);
  scan.bytes += 64 + id.length;
  const content = b.content;
  if (content === undefined || content === null) return;
  const cp = `${path}.content`;
  if (typeof content === 'string') {
    scan.bytes += Buffer.byteLength(content, 'utf8');
    return;
  }
  if (!Array.isArray(content)) throw invalid(cp, `must be null, a string or an array of content blocks, got ${kind(content)}`);
  for (let i = 0; i < content.length; i++) {
    const p = `${cp}[${i}]`;
    const c = obj(content[i], p);
    const type = str(c.type, `${p}.type`, 1);
    if (type === 'text') {
      textBlock(c, p, false);
      scan.bytes += jsonBytes(c);
    } else if (type === 'image') {
      imageBlock(c, p, scan);
    } else if (type === 'tool_reference') {
      toolReference(c, p, scan);
    } else if (type === 'document') {
      wrongType(type, p, 'user', TOOL_RESULT_BLOCKS);
    } else {
      throw invalid(`${p}.type`, `block type "${shorten(type)}" is not allowed in tool_result content; allowed: ${TOOL_RESULT_BLOCKS.join(', ')}`);
    }
  }
}

function toolReference(c: JsonObject, path: string, scan: Scan): void {
  rejectUnknown(c, TOOL_REFERENCE, path);
  const name = str(c.tool_name, `${path}.tool_name`, 1);
  cacheControl(c.cache_control, `${path}.cache_control`);
  if (!scan.toolNames.has(name)) {
    throw invalid(`${path}.tool_name`, `"${shorten(name)}" names no tool of the request's tools`);
  }
  scan.bytes += 32 + name.length;
}
