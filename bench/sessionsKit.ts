/**
 * Measuring helpers of `bench/sessions.ts`: a raw tmux server of the bench's own (the floors), a wait for
 * text in a growing file, a follower of a city's event stream that times each request's terminal event,
 * and a keep-alive HTTP client. Every wait is bounded by a deadline.
 */
import { execFile } from 'node:child_process';
import { open, rm, stat } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { openSse, type SseClient } from '../test/helpers/sse.ts';

/** Runs `tmux -L <socket> args…` (execFile, like the runtime provider) and resolves with its stdout. */
export function tmux(socket: string, args: string[], timeoutMs = 10_000): Promise<string> {
  const env = { ...process.env };
  delete env.TMUX;
  delete env.TMUX_PANE;
  return new Promise((resolve, reject) => {
    execFile(
      'tmux',
      ['-L', socket, ...args],
      { env, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`tmux ${args[0] ?? ''} failed: ${(stderr || err.message).trim()}`));
        else resolve(stdout);
      },
    );
  });
}

/** Kills the tmux server on `socket`, if one runs, and removes its socket file. Never throws. */
export async function killTmuxServer(socket: string): Promise<void> {
  await tmux(socket, ['kill-server'], 5_000).catch(() => undefined);
  const dir = join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid?.() ?? 0}`);
  await rm(join(dir, socket), { force: true }).catch(() => undefined);
}

/** Polls `check` every `everyMs` until it answers true; throws `what` after `timeoutMs`. */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs: number,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/**
 * A file that grows by appends (a conversation log), read incrementally: `waitFor(text)` polls its size
 * every `everyMs` and reads only what was appended since the last look.
 */
export class GrowingFile {
  #offset = 0;
  #text = '';

  constructor(readonly path: string) {}

  async #readMore(): Promise<void> {
    const size = await stat(this.path).then(
      (s) => s.size,
      () => 0,
    );
    if (size <= this.#offset) return;
    const handle = await open(this.path, 'r');
    try {
      const buffer = Buffer.allocUnsafe(size - this.#offset);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.#offset);
      this.#offset += bytesRead;
      this.#text += buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  }

  /** Resolves with `performance.now()` at the look that first found `text` after the current end. */
  async waitFor(text: string, timeoutMs: number, everyMs = 2): Promise<number> {
    const from = this.#text.length;
    let at = 0;
    await until(
      `"${text}" in ${this.path}`,
      async () => {
        await this.#readMore();
        at = performance.now();
        return this.#text.indexOf(text, from) >= 0;
      },
      timeoutMs,
      everyMs,
    );
    return at;
  }

  /** Moves the read position to the current end (what is there now is not waited for). */
  async skipToEnd(): Promise<void> {
    await this.#readMore();
  }
}

export interface Terminal {
  at: number;
  type: string;
  seq: number;
  payload: Record<string, unknown>;
}

/**
 * Follows a city's event stream (`GET …/events/stream?after_seq=`) over one connection for the whole
 * run, as a client watching the city does, and times the arrival of every request's terminal event.
 */
export class TerminalFollower {
  readonly #arrived = new Map<string, Terminal>();
  readonly #waiting = new Map<string, (t: Terminal) => void>();
  #closed = false;
  readonly #pumping: Promise<void>;

  private constructor(private readonly sse: SseClient) {
    this.#pumping = this.#pump();
  }

  static async open(url: string): Promise<TerminalFollower> {
    const sse = await openSse(url);
    if (sse.status !== 200) throw new Error(`event stream answered ${sse.status}: ${sse.body}`);
    return new TerminalFollower(sse);
  }

  async #pump(): Promise<void> {
    while (!this.#closed) {
      let data: string;
      try {
        const frame = await this.sse.nextEvent(30_000);
        if (frame.event !== 'event') continue;
        data = frame.data;
      } catch {
        if (this.#closed || this.sse.isEnded) return;
        continue;
      }
      const at = performance.now();
      const ev = JSON.parse(data) as { seq?: number; type: string; payload?: Record<string, unknown> };
      const id = ev.payload?.request_id;
      if (typeof id !== 'string') continue;
      if (ev.type !== 'request.failed' && !ev.type.startsWith('request.result.')) continue;
      const t: Terminal = { at, type: ev.type, seq: Number(ev.seq ?? 0), payload: ev.payload! };
      const waiter = this.#waiting.get(id);
      if (waiter) {
        this.#waiting.delete(id);
        waiter(t);
      } else this.#arrived.set(id, t);
    }
  }

  /** The terminal event of `requestId` (maybe arrived already); throws after `timeoutMs`. */
  async wait(requestId: string, timeoutMs: number): Promise<Terminal> {
    const early = this.#arrived.get(requestId);
    if (early) {
      this.#arrived.delete(requestId);
      return early;
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      return await new Promise<Terminal>((resolve, reject) => {
        this.#waiting.set(requestId, resolve);
        timer = setTimeout(() => {
          this.#waiting.delete(requestId);
          reject(new Error(`no terminal event for ${requestId} within ${timeoutMs} ms`));
        }, timeoutMs);
      });
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.sse.close();
    await this.#pumping;
  }
}

export interface HttpReply {
  status: number;
  body: string;
}

/** A keep-alive HTTP/1.1 client of `base` with at most `window` sockets; mutations carry X-GC-Request. */
export function httpClient(base: string, window = 1) {
  const agent = new Agent({ keepAlive: true, maxSockets: window });
  const url = new URL(base);
  const send = (method: string, path: string, body?: unknown): Promise<HttpReply> =>
    new Promise((resolve, reject) => {
      const text = body === undefined ? undefined : JSON.stringify(body);
      const headers: Record<string, string | number> = method === 'GET' ? {} : { 'x-gc-request': '1' };
      if (text !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(text);
      }
      const req = request(
        { agent, host: url.hostname, port: url.port, method, path, headers, timeout: 60_000 },
        (res) => {
          let out = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (out += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: out }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within 60 s`)));
      req.on('error', reject);
      req.end(text);
    });
  /** Sends and parses a JSON answer, throwing unless the status is `want`. */
  const json = async <T>(method: string, path: string, want: number, body?: unknown): Promise<T> => {
    const res = await send(method, path, body);
    if (res.status !== want) throw new Error(`${method} ${path} answered ${res.status}: ${res.body}`);
    return JSON.parse(res.body) as T;
  };
  return { send, json, close: () => agent.destroy() };
}

/** The `q` quantile (0..1) of `values`, nearest rank (sorts a copy). NaN when empty. Pure. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

export const round = (v: number, digits = 3): number => Math.round(v * 10 ** digits) / 10 ** digits;

/** p50/p99/max of a sample, rounded, with its size. Pure. */
export function summary(values: readonly number[]): { n: number; p50: number; p99: number; max: number } {
  return {
    n: values.length,
    p50: round(quantile(values, 0.5)),
    p99: round(quantile(values, 0.99)),
    max: round(quantile(values, 1)),
  };
}
