// A worker's side of the cluster (bin/gateway --workers N without `limits`): rate-limit decisions
// are asked of the primary, which keeps the one set of buckets (lib/rate-limit.ts) for all workers,
// so a key's limit holds across them exactly; pins and key changes go through the primary to the
// other workers (the bus).
import type { Bus, BusMessage } from '../limits/bus.js';
import { decisionOf, settleVerdict, type RateDecision, type RateHeaders, type RateLimiter } from '../rate-limit.js';
import { errors } from '../errors/index.js';
import type { StickyRoutes } from '../sticky.js';
import type { KeyRecord } from '../store/types.js';
import { isGatewayMessage, type PrimaryToWorker, type WorkerToPrimary } from './messages.js';

interface Waiting {
  key: KeyRecord;
  headers: RateHeaders | undefined;
  resolve(d: RateDecision): void;
  reject(err: unknown): void;
}

export class WorkerLink implements RateLimiter, Bus {
  private nextId = 0;
  private readonly waiting = new Map<number, Waiting>();
  private readonly handlers: ((msg: BusMessage) => void)[] = [];
  /** where the primary's copy of the pins goes (attachSticky) */
  private sticky: StickyRoutes | null = null;

  constructor(private readonly channel: NodeJS.Process = process) {
    channel.on('message', (m: unknown) => {
      if (isGatewayMessage<PrimaryToWorker>(m)) this.receive(m);
    });
    // the primary is gone: nobody answers any more
    channel.on('disconnect', () => {
      for (const w of this.waiting.values()) w.reject(errors.limitsUnreachable(new Error('the cluster primary exited')));
      this.waiting.clear();
    });
  }

  private send(m: WorkerToPrimary): boolean {
    if (!this.channel.connected || this.channel.send === undefined) return false;
    this.channel.send(m);
    return true;
  }

  private receive(m: PrimaryToWorker): void {
    if (m.gw === 'verdict') {
      const w = this.waiting.get(m.id);
      if (w === undefined) return;
      this.waiting.delete(m.id);
      try {
        w.resolve(settleVerdict(w.key, m.verdict, w.headers));
      } catch (err) {
        w.reject(err);
      }
    } else if (m.gw === 'bus') {
      for (const h of this.handlers) h(m.msg);
    } else if (m.gw === 'sticky') {
      for (const [slot, pin] of m.entries) this.sticky?.adopt(slot, pin);
    }
  }

  admit(key: KeyRecord, estimatedTokens: number, headers?: RateHeaders): RateDecision | Promise<RateDecision> {
    // an unlimited key has nothing to count: no round trip
    if (key.rateLimit.rpm === null && key.rateLimit.tpm === null) return decisionOf({ requests: 0, tokens: 0 }, null, null, Math.max(0, Math.ceil(estimatedTokens)), null);
    const id = ++this.nextId;
    return new Promise<RateDecision>((resolve, reject) => {
      this.waiting.set(id, { key, headers, resolve, reject });
      if (!this.send({ gw: 'admit', id, key: { id: key.id, rateLimit: key.rateLimit }, estimate: estimatedTokens })) {
        this.waiting.delete(id);
        reject(errors.limitsUnreachable(new Error('the cluster primary exited')));
      }
    });
  }

  record(key: KeyRecord, tokens: number, estimatedTokens = 0): void {
    if (key.rateLimit.tpm === null) return;
    this.send({ gw: 'record', key: { id: key.id, rateLimit: key.rateLimit }, tokens, estimate: estimatedTokens });
  }

  publish(msg: BusMessage): void {
    this.send({ gw: 'bus', msg });
  }

  subscribe(handler: (msg: BusMessage) => void): void {
    this.handlers.push(handler);
  }

  /** this worker's sessions: the primary sends the pins made so far (a restarted worker knows them) */
  attachSticky(sticky: StickyRoutes): void {
    this.sticky = sticky;
    this.send({ gw: 'sticky-snapshot' });
  }

  /** tell the primary this worker serves (it logs one `listening` line for all) */
  listening(url: string, sim: string | null): void {
    this.send({ gw: 'listening', url, sim });
  }
}
