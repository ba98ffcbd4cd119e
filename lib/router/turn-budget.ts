// Bounded text for the router: a dialect's conversation reader walks the messages newest first and
// hands each turn's pieces here; the budget keeps at most `turns` turns and `totalChars` characters
// (a long turn as its head and its tail, where the question usually is), so reading a request costs
// the same however long its history is.
import type { RouterTurn } from './router-api.js';

/** How much of a conversation gateway-auto's router reads. */
export interface ConversationLimits {
  readonly turns: number;
  readonly turnChars: number;
  readonly totalChars: number;
}

export const CONVERSATION_LIMITS: ConversationLimits = Object.freeze({ turns: 6, turnChars: 4000, totalChars: 16000 });

/** One turn's text, built from pieces; past its room, only the tail is kept beside the head. */
export class TurnText {
  private head = '';
  private tail = '';
  private more = false;
  constructor(private readonly room: number) {}

  push(piece: string): void {
    if (piece.length === 0) return;
    const half = this.room >> 1;
    if (!this.more && this.head.length + piece.length + 1 <= this.room) {
      this.head = this.head.length === 0 ? piece : `${this.head}\n${piece}`;
      return;
    }
    if (!this.more) {
      // the head is full from here: keep its first half, the rest goes to the tail
      const joined = this.head.length === 0 ? piece : `${this.head}\n${piece}`;
      this.head = joined.slice(0, half);
      this.tail = joined.slice(-half);
      this.more = true;
      return;
    }
    this.tail = (this.tail + '\n' + piece.slice(-half)).slice(-half);
  }

  toString(): string {
    return this.more ? `${this.head}\n…\n${this.tail}` : this.head;
  }
}

export class TurnBudget {
  private readonly newestFirst: RouterTurn[] = [];
  private chars = 0;
  constructor(private readonly limits: ConversationLimits) {}

  /** no more turns fit: the walk stops */
  get full(): boolean {
    return this.newestFirst.length >= this.limits.turns || this.chars >= this.limits.totalChars;
  }

  /** a text builder for the next (older) turn, sized to what is left */
  text(): TurnText {
    return new TurnText(Math.max(0, Math.min(this.limits.turnChars, this.limits.totalChars - this.chars)));
  }

  /** the next older turn (empty turns are skipped) */
  add(role: RouterTurn['role'], text: TurnText | string): void {
    const s = typeof text === 'string' ? clip(text, Math.min(this.limits.turnChars, this.limits.totalChars - this.chars)) : text.toString();
    if (s.length === 0 || this.full) return;
    this.newestFirst.push({ role, text: s });
    this.chars += s.length;
  }

  /** the collected turns, oldest first, after the system text if any room is left for it */
  turns(system?: string): RouterTurn[] {
    const out = this.newestFirst.slice().reverse();
    const room = Math.min(this.limits.turnChars, this.limits.totalChars - this.chars);
    if (system !== undefined && system.length > 0 && room > 0) out.unshift({ role: 'system', text: clip(system, room) });
    return out;
  }
}

/** `text` within `room` characters: its head and its tail. */
export function clip(text: string, room: number): string {
  if (text.length <= room) return text;
  if (room <= 2) return text.slice(0, Math.max(0, room));
  const half = (room - 1) >> 1;
  return `${text.slice(0, half)}…${text.slice(-half)}`;
}
