// Where a JSON object or array streamed in pieces ends, without parsing it: the depth of its
// brackets outside strings, piece by piece (each character is looked at once, whatever the
// pieces). Used to tell, while tool-call arguments still stream, whether a call's arguments look
// whole (a parallel call may open after it: lib/dialects/openai-chat/tool-calls.ts). A heuristic,
// not a validator: whether the text is JSON is still checked once it is whole (stages/integrity.ts).

export class JsonValueEnd {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** an object or array opened and closed again, with only whitespace after it */
  complete = false;

  feed(piece: string): void {
    for (let i = 0; i < piece.length; i++) {
      const c = piece.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true; // backslash
        else if (c === 0x22) this.inString = false; // "
        continue;
      }
      switch (c) {
        case 0x22:
          this.inString = true;
          this.complete = false;
          break;
        case 0x7b: // {
        case 0x5b: // [
          this.depth++;
          this.complete = false;
          break;
        case 0x7d: // }
        case 0x5d: // ]
          this.depth--;
          this.complete = this.depth === 0;
          break;
        case 0x20:
        case 0x09:
        case 0x0a:
        case 0x0d:
          break;
        default:
          if (this.depth === 0) this.complete = false;
      }
    }
  }
}
