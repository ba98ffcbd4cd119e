// One raw TCP connection to the gateway (node:net), for what node:http clients cannot do: trickle a
// body, send malformed or oversized heads, read an interim 100 Continue, watch the connection close.
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export class RawConnection {
  readonly socket: Socket;
  /** interim (1xx) statuses seen so far */
  readonly interim: number[] = [];
  /** resolves when the connection is closed, with the first socket error code if any */
  readonly closed: Promise<{ error?: string }>;
  private received = Buffer.alloc(0);
  private readonly answers: RawAnswer[] = [];
  private waiters: (() => void)[] = [];
  private error: string | undefined;

  constructor(url: string) {
    const { hostname, port } = new URL(url);
    this.socket = connect({ host: hostname, port: Number(port), allowHalfOpen: true });
    this.socket.on('data', (d: Buffer) => {
      this.received = Buffer.concat([this.received, d]);
      this.parse();
    });
    this.socket.on('error', (err: NodeJS.ErrnoException) => {
      this.error ??= err.code ?? err.message;
    });
    this.closed = new Promise((resolve) =>
      this.socket.once('close', () => {
        for (const w of this.waiters) w();
        resolve(this.error === undefined ? {} : { error: this.error });
      }),
    );
  }

  get isClosed(): boolean {
    return this.socket.destroyed;
  }

  write(data: string | Buffer): void {
    if (!this.socket.destroyed) this.socket.write(data);
  }

  /** a request head (CRLF line endings added) */
  head(lines: string[]): void {
    this.write(`${lines.join('\r\n')}\r\n\r\n`);
  }

  /** send `bytes` one piece every `everyMs` until the connection closes or `stop()` is called */
  trickle(piece: string, everyMs: number): () => void {
    const timer = setInterval(() => {
      if (this.socket.destroyed || !this.socket.writable) return clearInterval(timer);
      this.socket.write(piece);
    }, everyMs);
    return () => clearInterval(timer);
  }

  /** the next final answer (after any 1xx); null if the connection closed first */
  async answer(): Promise<RawAnswer | null> {
    for (;;) {
      const a = this.answers.shift();
      if (a !== undefined) return a;
      if (this.socket.destroyed) return null;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** resolves once an interim 100 Continue (or a final answer) has arrived */
  async continued(): Promise<void> {
    while (this.interim.length === 0 && this.answers.length === 0 && !this.socket.destroyed) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  destroy(): void {
    this.socket.destroy();
  }

  private parse(): void {
    for (;;) {
      const end = this.received.indexOf('\r\n\r\n');
      if (end < 0) break;
      const lines = this.received.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(lines[0]!.split(' ')[1]);
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      if (status >= 100 && status < 200) {
        this.interim.push(status);
        this.received = this.received.subarray(end + 4);
        continue;
      }
      const length = Number(headers['content-length'] ?? NaN);
      if (!Number.isFinite(length)) break; // only whole-document answers are read here
      if (this.received.length < end + 4 + length) break;
      this.answers.push({ status, headers, body: this.received.subarray(end + 4, end + 4 + length).toString('utf8') });
      this.received = this.received.subarray(end + 4 + length);
    }
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

/** resolves true once `p` settles within `ms`, else false */
export async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const r = await Promise.race([p.then(() => true as const), late]);
  clearTimeout(timer);
  return r;
}
