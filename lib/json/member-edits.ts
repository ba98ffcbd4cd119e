// Edits to a JSON object's text at the places memberSpans (member-spans.ts) found: a native answer
// goes to the client as the upstream's text with the gateway's own members written in whole
// (`"key":value`), replacing the upstream's member of that name or added before the object's end.
// Used by each dialect's JSON pass-through (lib/dialects/*/through-json.ts).
import { byStart } from './edit-order.js';
import type { MemberSpans } from './member-spans.js';

interface Edit {
  start: number;
  end: number;
  text: string;
}

export class MemberEdits {
  private readonly edits: Edit[] = [];

  /** `"key":json` in place of the member `key` of `obj`, or added before its end. `key` needs no escaping. */
  set(obj: MemberSpans, key: string, json: string): void {
    const span = obj.get(key);
    const member = `"${key}":${json}`;
    if (span === undefined) this.edits.push({ start: obj.close, end: obj.close, text: `,${member}` });
    else this.edits.push({ start: span[0], end: span[2], text: member });
  }

  /** `"key":json` added before the end of `obj` (whether or not it has such a member: the caller knows). */
  add(obj: MemberSpans, key: string, json: string): void {
    this.edits.push({ start: obj.close, end: obj.close, text: `,"${key}":${json}` });
  }

  /** `text` with the edits made, from the object's `{` on (what precedes it, spacing, is dropped) and up to its `}`. */
  apply(text: string, top: MemberSpans): string {
    const edits = byStart(this.edits);
    let out = '';
    let at = text.indexOf('{');
    for (const e of edits) {
      out += text.slice(at, e.start) + e.text;
      at = e.end;
    }
    return out + text.slice(at, top.close + 1);
  }
}

