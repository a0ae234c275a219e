import { request, type ClientRequest } from 'node:http';
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';

/** One `event`/`tagged_event` frame a follower received, with the moment it arrived. */
export interface Received {
  id: string;
  event: JournalEvent & { city?: string };
  at: number;
}

/**
 * An SSE client that never gives up: it follows one stream path across server crashes and restarts,
 * reconnecting with `Last-Event-ID` set to the last id it received, exactly as a browser EventSource
 * does. Heartbeats are counted, not kept. Whatever the server does, `received` must read as one
 * gap-free, duplicate-free sequence.
 */
export class Follower {
  readonly received: Received[] = [];
  /** Connections that ended (server gone, stream closed) and were re-opened. */
  reconnects = 0;
  heartbeats = 0;
  /** Statuses of refused attempts (503 while the broker is down, 404 while a city starts, …). */
  readonly refusals: number[] = [];
  /** Frames that broke the SSE contract (an event without `id:`, data that is not JSON). */
  readonly anomalies: string[] = [];
  #lastId: string | undefined;
  #req: ClientRequest | undefined;
  #closed = false;
  #done: Promise<void>;
  #listeners: Array<() => void> = [];

  /**
   * @param base the server's current base URL (read again on every reconnect)
   * @param path stream path with its initial query (`/v0/events/stream?after_cursor=0`)
   */
  constructor(
    private readonly base: () => string,
    private readonly path: string,
  ) {
    this.#done = this.#run();
  }

  get lastId(): string | undefined {
    return this.#lastId;
  }

  /** Resolves once `predicate` holds over what was received (checked on every frame), or rejects. */
  async until(
    predicate: (r: readonly Received[]) => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.received)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`stream ${this.path}: timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.#listeners.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Stops following (no reconnect) and waits for the connection to go. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#req?.destroy();
    await this.#done;
  }

  async #run(): Promise<void> {
    while (!this.#closed) {
      const outcome = await this.#connect().catch(() => 'error' as const);
      if (this.#closed) break;
      if (outcome === 'ended') this.reconnects++;
      await new Promise((r) => setTimeout(r, outcome === 'ended' ? 10 : 50));
    }
  }

  /** One connection: resolves when it ends ('ended') or was refused ('refused'); rejects on a socket error. */
  #connect(): Promise<'ended' | 'refused'> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (this.#lastId !== undefined) headers['last-event-id'] = this.#lastId;
      const req = request(this.base() + this.path, { headers }, (res) => {
        if (res.statusCode !== 200) {
          this.refusals.push(res.statusCode ?? 0);
          res.resume();
          res.on('end', () => resolve('refused'));
          res.on('error', () => resolve('refused'));
          return;
        }
        res.setEncoding('utf8');
        let pending = '';
        res.on('data', (chunk: string) => {
          pending += chunk;
          let end: number;
          while ((end = pending.indexOf('\n\n')) >= 0) {
            this.#frame(pending.slice(0, end));
            pending = pending.slice(end + 2);
          }
          for (const wake of this.#listeners.splice(0)) wake();
        });
        res.on('end', () => resolve('ended'));
        res.on('error', () => resolve('ended'));
        res.on('close', () => resolve('ended'));
      });
      this.#req = req;
      req.on('error', reject);
      req.end();
    });
  }

  #frame(raw: string): void {
    let id: string | undefined;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of raw.split('\n')) {
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (event === 'heartbeat') {
      this.heartbeats++;
      return;
    }
    let parsed: Received['event'];
    try {
      parsed = JSON.parse(data.join('\n')) as Received['event'];
    } catch {
      this.anomalies.push(`data is not JSON: ${raw}`);
      return;
    }
    if (id === undefined) {
      this.anomalies.push(`event frame without id: ${raw}`);
      return;
    }
    this.#lastId = id;
    this.received.push({ id, event: parsed, at: Date.now() });
  }
}
