import { join } from 'node:path';
import type { Journal, JournalBackend, JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { SUPERVISOR_LOG } from '../../actors/runtime/journal/journal.ts';
import { isInternalEvent } from '../../actors/runtime/feed/visibility.ts';
import { cityLogFile } from '../../actors/supervisor/cityActor.ts';
import { parseCompositeCursor } from '../../schemas/compositeCursor.ts';
import { openSse, type SseClient } from './sse.ts';

/**
 * The create → result → unregister → result flow under load, read on the supervisor stream, and the
 * checks of issue 33's acceptance: every city's `city.created` and `controller.started` before its
 * `request.result.city.create`, its `controller.stopped` before its `request.result.city.unregister`,
 * every event exactly once, whether the stream reads from the head or resumes from a cursor. Shared by
 * test/events/causalOrderLoad.test.ts (a small count) and bench/causalOrder.ts (1,000 creates).
 */

/** One frame of the supervisor stream, with the log it came from (a request result names its city). */
export interface FlowFrame {
  /** The source log: `__supervisor__` for request results, else the frame's city. */
  readonly source: string;
  readonly city: string;
  readonly seq: number;
  readonly type: string;
  /** The composite cursor after it (the frame's id). */
  readonly id: string;
}

const SUPERVISOR_TYPES = new Set([
  'request.result.city.create',
  'request.result.city.unregister',
  'request.failed',
]);

/** A supervisor stream read into memory as its frames arrive. */
export class FlowReader {
  readonly frames: FlowFrame[] = [];
  #failure: unknown;
  readonly #done: Promise<void>;
  #stop = false;

  private constructor(readonly sse: SseClient) {
    this.#done = this.#read();
  }

  /** Opens the supervisor stream of `url`, from the head or after `cursor`. */
  static async open(url: string, cursor?: string): Promise<FlowReader> {
    const sse = await openSse(
      `${url}/v0/events/stream`,
      cursor === undefined ? {} : { 'last-event-id': cursor },
    );
    if (sse.status !== 200) throw new Error(`supervisor stream answered ${sse.status}: ${sse.body}`);
    return new FlowReader(sse);
  }

  async #read(): Promise<void> {
    try {
      while (!this.#stop) {
        const frame = await this.sse.nextEvent(120_000);
        const data = JSON.parse(frame.data) as { city: string; seq: number; type: string };
        const source = SUPERVISOR_TYPES.has(data.type) ? SUPERVISOR_LOG : data.city;
        this.frames.push({ source, city: data.city, seq: data.seq, type: data.type, id: frame.id ?? '' });
      }
    } catch (err) {
      if (!this.#stop) this.#failure = err;
    }
  }

  /** Resolves once `check` holds of the frames read; rejects when the stream failed or `timeoutMs` passed. */
  async until(check: (frames: readonly FlowFrame[]) => boolean, timeoutMs: number): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!check(this.frames)) {
      if (this.#failure) throw this.#failure as Error;
      if (Date.now() > end) throw new Error(`stream check not met within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async close(): Promise<void> {
    this.#stop = true;
    this.sse.close();
    await this.#done;
  }
}

export interface FlowClient {
  url: string;
  /** The supervisor's own log: the flow waits on it for each request's terminal. */
  log: Journal;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
}

/** Waits for terminal events of the supervisor log by request id (one subscription for all). */
class Terminals {
  readonly #seen = new Map<string, JournalEvent>();
  readonly #waiting = new Map<string, (event: JournalEvent) => void>();
  readonly #sub: ReturnType<Journal['subscribe']>;

  constructor(log: Journal, after: number) {
    const sub = log.subscribe(after);
    this.#sub = sub;
    void (async () => {
      for await (const e of sub) {
        if (e.type !== 'request.failed' && !e.type.startsWith('request.result.')) continue;
        const id = (e.payload as { request_id: string }).request_id;
        this.#seen.set(id, e);
        this.#waiting.get(id)?.(e);
      }
    })();
  }

  of(requestId: string): Promise<JournalEvent> {
    const seen = this.#seen.get(requestId);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiting.set(requestId, resolve));
  }

  close(): Promise<void> {
    return this.#sub.close();
  }
}

export interface LoadOptions {
  /** City names to create then unregister. */
  names: readonly string[];
  /** Creates (each followed by its unregister) in flight at once. */
  concurrency: number;
  /** Where the city dirs go. */
  root: string;
  /** Told of each 202's event_cursor as it comes (a resume point a client would use). */
  onCursor?: (cursor: string, city: string) => void;
}

/** Every city created, then unregistered once its create is terminal; throws on an answer that is not 202. */
export async function createUnregisterLoad(client: FlowClient, options: LoadOptions): Promise<void> {
  const terminals = new Terminals(client.log, await client.log.head());
  const accept = async (city: string, path: string, body?: unknown): Promise<string> => {
    for (let attempt = 0; ; attempt++) {
      const res = await client.call('POST', path, body);
      // The create's claim is released just after its terminal: a 409 then only says "a moment".
      if (res.status === 409 && attempt < 50) {
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      if (res.status !== 202) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      const { request_id, event_cursor } = res.body as { request_id: string; event_cursor: string };
      options.onCursor?.(event_cursor, city);
      return request_id;
    }
  };
  const queue = [...options.names];
  const worker = async (): Promise<void> => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      const created = await accept(name, '/v0/city', {
        dir: join(options.root, name),
        start_command: 'true',
      });
      const createResult = await terminals.of(created);
      if (createResult.type !== 'request.result.city.create')
        throw new Error(`create ${name}: ${JSON.stringify(createResult.payload)}`);
      const unregistered = await accept(name, `/v0/city/${name}/unregister`);
      const unregisterResult = await terminals.of(unregistered);
      if (unregisterResult.type !== 'request.result.city.unregister')
        throw new Error(`unregister ${name}: ${JSON.stringify(unregisterResult.payload)}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  } finally {
    await terminals.close();
  }
}

/** The served events of every log the flow touched, by log name, read afresh through `backend`. */
export async function servedLogs(
  backend: JournalBackend,
  supervisorLog: Journal,
  cities: ReadonlyMap<string, string>,
): Promise<Map<string, JournalEvent[]>> {
  const out = new Map<string, JournalEvent[]>();
  const served = (log: string, events: JournalEvent[]): JournalEvent[] =>
    events.filter((e) => !isInternalEvent(log, e));
  out.set(SUPERVISOR_LOG, served(SUPERVISOR_LOG, await supervisorLog.list()));
  for (const [name, dir] of cities) {
    const journal = await backend.open({ name, file: cityLogFile(dir) });
    out.set(name, served(name, await journal.list()));
  }
  return out;
}

/** What a stream resumed after `cursor` must deliver: every served event past the cursor's pair of its log. */
export function expectedAfter(
  cursor: string | undefined,
  logs: ReadonlyMap<string, JournalEvent[]>,
): Set<string> {
  const at = cursor === undefined ? new Map<string, number>() : parseCompositeCursor(cursor);
  const out = new Set<string>();
  for (const [log, events] of logs)
    for (const e of events) if (e.seq > (at.get(log) ?? 0)) out.add(`${log}#${e.seq}`);
  return out;
}

/**
 * What is wrong with `frames` read after `cursor` (none: an empty list): an event twice, one missing or
 * one not owed past the cursor, and, for each city of `cities`, a request result before the city events it
 * follows from (`city.created` and `controller.started` before the create's, `controller.stopped` before
 * the unregister's), unless the cursor already covers them. `logs`: every log's served events.
 */
export function flowProblems(
  frames: readonly FlowFrame[],
  cursor: string | undefined,
  logs: ReadonlyMap<string, JournalEvent[]>,
  cities: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  const expected = expectedAfter(cursor, logs);
  const at = cursor === undefined ? new Map<string, number>() : parseCompositeCursor(cursor);
  const seen = new Set<string>();
  /** Whether the city's (last) `type` event was delivered before now, or lies at or before the cursor. */
  const had = (city: string, type: string): boolean => {
    // A city whose log had left the mux (its grace over) before the stream opened is owed nothing.
    if (!logs.has(city)) return true;
    const event = logs.get(city)!.findLast((e) => e.type === type);
    if (!event) return false;
    return event.seq <= (at.get(city) ?? 0) || seen.has(`${city}#${event.seq}`);
  };
  for (const f of frames) {
    const key = `${f.source}#${f.seq}`;
    if (seen.has(key)) problems.push(`${key} (${f.type}) delivered twice`);
    if (!expected.has(key)) problems.push(`${key} (${f.type}) not owed after the cursor`);
    if (f.source === SUPERVISOR_LOG && cities.has(f.city)) {
      const needs =
        f.type === 'request.result.city.create'
          ? ['city.created', 'controller.started']
          : f.type === 'request.result.city.unregister'
            ? ['controller.stopped']
            : [];
      for (const need of needs)
        if (!had(f.city, need)) problems.push(`${f.city}: ${f.type} before its ${need}`);
    }
    seen.add(key);
  }
  for (const key of expected) if (!seen.has(key)) problems.push(`${key} never delivered`);
  return problems;
}

export interface AcceptanceOptions {
  client: FlowClient;
  /** A second backend on the same store, to read every log afresh at the end. */
  verify: JournalBackend;
  names: readonly string[];
  concurrency: number;
  root: string;
  /** Streams resumed while the load runs, each from a recent cursor of the head stream or a 202's. */
  resumesDuring: number;
  /**
   * The logs in the supervisor mux now. A stream resumed after a city's grace ended cannot get that city's
   * events (LiveCities.depart): given this, such logs are not owed to it (a run longer than the grace).
   */
  mux?: () => ReadonlySet<string>;
  /** Streams resumed once it is done, from random cursors of the head stream. */
  resumesAfter: number;
  /** Resume points are drawn among the last this many frames of the head stream (within the grace). */
  recent?: number;
  random?: () => number;
  /** The composite cursor of the head stream's start (every log's head when it opened). */
  headStart: string;
  /** Cities there before the flow (name → dir): their events count too. */
  others: ReadonlyMap<string, string>;
}

export interface AcceptanceResult {
  /** Problems per stream, by label; every list empty when the flow held. */
  problems: Map<string, string[]>;
  frames: number;
  streams: number;
  ms: number;
}

/**
 * Runs the load with a head stream opened before the first city of `names`, streams resumed during and
 * after it, then reads every log afresh and checks every stream (flowProblems).
 */
export async function causalAcceptance(head: FlowReader, o: AcceptanceOptions): Promise<AcceptanceResult> {
  const random = o.random ?? Math.random;
  const recent = o.recent ?? 200;
  const started = Date.now();
  const readers: Array<{
    label: string;
    cursor: string;
    reader: FlowReader;
    owes: (log: string) => boolean;
  }> = [];
  /** Cities whose create was answered: one of them absent from the mux has left it for good. */
  const answered = new Set<string>();
  const accepted: string[] = [];
  const pick = (): string | undefined => {
    const frames = head.frames.slice(-recent);
    const useAccepted = accepted.length > 0 && random() < 0.3;
    if (useAccepted)
      return accepted[
        Math.floor(random() * Math.min(accepted.length, 20)) + Math.max(0, accepted.length - 20)
      ];
    return frames.length > 0 ? frames[Math.floor(random() * frames.length)]!.id : undefined;
  };
  const resume = async (label: string): Promise<void> => {
    const cursor = pick();
    if (cursor === undefined) return;
    const inMux = o.mux?.();
    const known = new Set(answered);
    const owes = (log: string): boolean => !inMux || inMux.has(log) || !known.has(log);
    readers.push({ label, cursor, reader: await FlowReader.open(o.client.url, cursor), owes });
  };
  // Spread over the load: a resume at every `every`-th 202 (creates and unregisters alike).
  const every = Math.max(1, Math.floor((o.names.length * 2) / (o.resumesDuring + 1)));
  const opening: Array<Promise<void>> = [];
  const cities = new Map(o.names.map((n) => [n, join(o.root, n)]));
  try {
    await createUnregisterLoad(o.client, {
      names: o.names,
      concurrency: o.concurrency,
      root: o.root,
      onCursor: (c, city) => {
        accepted.push(c);
        answered.add(city);
        if (accepted.length % every === 0 && opening.length < o.resumesDuring)
          opening.push(resume(`during#${opening.length}`));
      },
    });
  } finally {
    await Promise.all(opening);
  }
  for (let i = 0; i < o.resumesAfter; i++) await resume(`after#${i}`);
  const logs = await servedLogs(o.verify, o.client.log, new Map([...o.others, ...cities]));
  const problems = new Map<string, string[]>();
  const all = [{ label: 'head', cursor: o.headStart, reader: head, owes: () => true }, ...readers];
  let frames = 0;
  for (const { label, cursor, reader, owes } of all) {
    const owedLogs = new Map([...logs].filter(([log]) => owes(log)));
    const owed = expectedAfter(cursor, owedLogs).size;
    try {
      await reader.until((f) => f.length >= owed, 120_000);
    } catch (err) {
      problems.set(`${label} (${cursor.slice(0, 60)}…)`, [
        `only ${reader.frames.length} of ${owed} frames: ${String(err)}`,
      ]);
    }
    const found = flowProblems(reader.frames, cursor, owedLogs, new Set(o.names));
    if (found.length > 0) problems.set(label, [...(problems.get(label) ?? []), ...found.slice(0, 20)]);
    frames += reader.frames.length;
  }
  for (const { reader } of readers) await reader.close();
  return { problems, frames, streams: all.length, ms: Date.now() - started };
}
