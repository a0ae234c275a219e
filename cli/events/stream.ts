import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, type ApiClient } from '../api.ts';
import type { Scope } from '../cityScope.ts';
import { CursorPosition, SeqPosition, type StreamPosition } from '../cursor.ts';
import { CliError, errorText } from '../errors.ts';
import { compact } from '../jsonl.ts';
import type { SseFrame } from '../sse.ts';
import { openSse } from '../sseStream.ts';
import { decodeEvent, selected, type EventFilter, type WireEvent } from './filter.ts';
import { cityEventsPath } from './head.ts';

/** Reconnect back-off of `--follow`: 1 s, doubling to 30 s, back to 1 s after a connection that delivered. */
export const BACKOFF = { initialMs: 1000, maxMs: 30_000 } as const;

/** Where a scope's stream lives, what its event frames are called, and how positions are kept. */
export interface StreamTarget {
  path: string;
  /** The SSE `event:` name of an event frame (`event` or `tagged_event`). */
  frame: string;
  /** The resume query parameter (`after_seq` or `after_cursor`). */
  param: string;
  position: StreamPosition;
}

/** The stream target of a scope, positioned after `start` (undefined: the server's head at connect). Pure. */
export function streamTarget(scope: Scope, start: string | undefined): StreamTarget {
  return scope.kind === 'city'
    ? {
        path: `${cityEventsPath(scope.city)}/stream`,
        frame: 'event',
        param: 'after_seq',
        position: new SeqPosition(start === undefined ? undefined : Number(start)),
      }
    : {
        path: '/v0/events/stream',
        frame: 'tagged_event',
        param: 'after_cursor',
        position: new CursorPosition(start),
      };
}

/** What a stream consumer needs besides the target. */
export interface StreamRun {
  client: ApiClient;
  target: StreamTarget;
  filter: EventFilter;
  /** Stops the stream (the `--watch` timeout, or the caller giving up). */
  signal: AbortSignal;
  /**
   * Takes one matching event: its line (the frame's data as received) and the decoded object. Resolving
   * `'stop'` ends `follow` (a caller waiting for one particular event).
   */
  emit: (line: string, event: WireEvent) => Promise<void | 'stop'>;
  /** Writes one diagnostic line (already prefixed by the caller). */
  warn: (message: string) => void;
  /** Reconnect a connection silent for this long (no events, no heartbeats). */
  idleMs?: number;
  /** A Problem that ends `follow` even on a reconnect (where 404 and 5xx are otherwise retried). */
  giveUpOn?: (err: ApiError) => boolean;
}

/**
 * Handles one frame: heartbeats and foreign frames are consumed; an event frame is decoded (a malformed one
 * is a `CliError('decode: …')`), dropped when the position says it was already seen, and returned as the line
 * to print when it passes the filter. The line is the frame's data exactly as received.
 */
function lineOf(run: StreamRun, frame: SseFrame): { line: string; event: WireEvent } | undefined {
  if (frame.event !== run.target.frame) return undefined;
  let ev;
  try {
    ev = decodeEvent(frame.data);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  const id =
    frame.id ?? (run.target.frame === 'event' && typeof ev.seq === 'number' ? String(ev.seq) : undefined);
  if (!run.target.position.advance(id)) return undefined;
  if (!selected(run.filter, ev)) return undefined;
  return { line: frame.data.includes('\n') ? compact(ev) : frame.data, event: ev };
}

const connect = (run: StreamRun): Promise<AsyncIterable<SseFrame>> =>
  openSse(run.client, {
    path: run.target.path,
    query: { [run.target.param]: run.target.position.resume },
    signal: run.signal,
    idleMs: run.idleMs,
  });

/**
 * The supervisor stream's answer while no city is running (503 `no_providers:`, spec 6.3). Streams wait it
 * out like `tail -F` waits for a file: "follow, then create your first city" is an ordinary way to start.
 */
const noProviders = (err: unknown): err is ApiError => err instanceof ApiError && err.code === 'no_providers';

/** How often a stream waiting for its first city asks again (a city starting shows up within this). */
export const PROVIDER_POLL_MS = BACKOFF.initialMs;

/** Says, once per wait, what a stream is waiting for (the server's detail names the reason). */
function waitingNote(run: StreamRun): (err: ApiError) => void {
  let said = false;
  return (err) => {
    if (!said)
      run.warn(`waiting for a city to start (${err.message}); retrying every ${PROVIDER_POLL_MS / 1000}s`);
    said = true;
  };
}

/** Waits `ms` unless `signal` fires first; resolves false when it did. */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/**
 * `--watch`: prints the first matching event and resolves `'matched'`; resolves `'timeout'` with nothing
 * printed when `signal` fires first. While no city is running it waits for one (within the same time-out).
 * A stream that ends before a match is a failure.
 * @throws CliError (stream ended, decode), ApiError (setup Problem), TransportError
 */
export async function watch(run: StreamRun): Promise<'matched' | 'timeout'> {
  const waiting = waitingNote(run);
  for (;;) {
    try {
      for await (const frame of await connect(run)) {
        const found = lineOf(run, frame);
        if (found === undefined) continue;
        await run.emit(found.line, found.event);
        return 'matched';
      }
      break;
    } catch (err) {
      if (run.signal.aborted) return 'timeout';
      if (!noProviders(err)) throw err;
      waiting(err);
      if (!(await pause(PROVIDER_POLL_MS, run.signal))) return 'timeout';
    }
  }
  if (run.signal.aborted) return 'timeout';
  throw new CliError('stream ended before a matching event arrived');
}

/** Problems worth retrying on a reconnect: the supervisor restarting (5xx) or a city not running yet (404). */
const retryable = (err: ApiError): boolean => err.status >= 500 || err.status === 404 || err.status === 429;

/**
 * `--follow`: prints every matching event, forever. A clean end of stream, a broken or stalled connection,
 * or a failed reconnect is retried from the last position with back-off, so no line is printed twice and none
 * is skipped. While no city is running (`no_providers`, unless `giveUpOn` says otherwise) it asks again every
 * second, saying so once. The first connection's other setup Problems, a non-retryable Problem later, and an
 * undecodable frame are failures. Resolves when `signal` fires or `emit` says `'stop'`.
 */
export async function follow(run: StreamRun): Promise<void> {
  let delay: number = BACKOFF.initialMs;
  let connected = false;
  let waiting = waitingNote(run);
  while (!run.signal.aborted) {
    let delivered = false;
    let why: string;
    try {
      const frames = await connect(run);
      connected = true;
      waiting = waitingNote(run);
      for await (const frame of frames) {
        delivered = true;
        const found = lineOf(run, frame);
        if (found !== undefined && (await run.emit(found.line, found.event)) === 'stop') return;
      }
      if (delivered) delay = BACKOFF.initialMs;
      why = `stream ended, reconnecting in ${delay / 1000}s`;
    } catch (err) {
      if (run.signal.aborted) return;
      if (err instanceof CliError) throw err;
      if (noProviders(err) && !run.giveUpOn?.(err)) {
        // The position is kept: the first city's events are replayed from its seq 1 once it joins.
        waiting(err);
        if (!(await pause(PROVIDER_POLL_MS, run.signal))) return;
        continue;
      }
      if (err instanceof ApiError && (!connected || !retryable(err) || run.giveUpOn?.(err))) throw err;
      if (delivered) delay = BACKOFF.initialMs;
      why = delivered
        ? `stream broke, reconnecting in ${delay / 1000}s: ${errorText(err)}`
        : `connect failed, retrying in ${delay / 1000}s: ${errorText(err)}`;
    }
    run.warn(why);
    if (!(await pause(delay, run.signal))) return;
    delay = Math.min(delay * 2, BACKOFF.maxMs);
  }
}
