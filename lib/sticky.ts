// Sticky auto-routing: a session (Claude Code's `x-claude-code-session-id`, Responses `session_id`)
// keeps the model `gateway-auto` chose for it, so a conversation stays on one model (and one provider
// cache). The route stage decides when a session may move (stages/route-sticky.ts); this map only
// remembers the pin and when it was last used (the route stage ignores a pin older than
// `router.stickySeconds`, read at request time so a reload applies at once); bounded: the least
// recently used sessions are dropped first.
//
// A session id is chosen by the client, so it is only an id within one caller: the map is keyed by
// organisation, key id and session id together. Keyed by the session id alone, one organisation's
// pin (made under its own key's allowlist) routed another organisation's request with the same
// session id to that model, at its price (issue #18).
//
// A pin is a plain value (no methods, no references), so it can be shared: lib/limits/sticky-sync.ts
// sends each pin made here to the other replicas and workers (`onPin`) and takes theirs in
// (`adopt`); lookups stay local and synchronous.

/** Who a session belongs to: the authenticated key's organisation and id. */
export interface StickyOwner {
  org: string;
  keyId: string;
}

/** What a session is pinned to, as of its last routed request. */
export interface StickyPin {
  /** catalog id of the session's model */
  model: string;
  /** when the session's last request was routed (ms since the epoch): its prompt cache is as old */
  at: number;
  /** the input token bound of that request: how much of the next prompt the provider may have cached */
  inputTokens: number;
}

export class StickyRoutes {
  private readonly map = new Map<string, StickyPin>();
  /** told each pin this process makes (its map slot and the pin), to share it */
  onPin: ((slot: string, pin: StickyPin) => void) | null = null;
  constructor(private readonly max = 10_000) {}

  get(owner: StickyOwner, session: string): StickyPin | undefined {
    return this.map.get(slot(owner, session));
  }

  set(owner: StickyOwner, session: string, pin: StickyPin): void {
    const at = slot(owner, session);
    this.adopt(at, pin);
    this.onPin?.(at, pin);
  }

  /** a pin another process made (`at` as `onPin` gave it) */
  adopt(at: string, pin: StickyPin): void {
    this.map.delete(at);
    this.map.set(at, { model: pin.model, at: pin.at, inputTokens: pin.inputTokens });
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }

  /** every pin, oldest first (a new worker gets them from the cluster primary) */
  entries(): [string, StickyPin][] {
    return [...this.map];
  }
}

/** One map key per (org, key, session); JSON keeps ids containing any separator apart. */
function slot(owner: StickyOwner, session: string): string {
  return JSON.stringify([owner.org, owner.keyId, session]);
}

/** A pin read from another process (the bus, Redis): null when it is not one. */
export function stickyPin(raw: unknown): StickyPin | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const p = raw as Record<string, unknown>;
  if (typeof p.model !== 'string' || typeof p.at !== 'number' || typeof p.inputTokens !== 'number') return null;
  return { model: p.model, at: p.at, inputTokens: p.inputTokens };
}
