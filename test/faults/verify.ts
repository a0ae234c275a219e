import type { Test } from 'tap';
import type { JournalEvent } from '../../actors/runtime/journal/journal.ts';
import type { Follower, Received } from './follower.ts';
import { isGapFree, isTerminal, requestIdOf } from './kit.ts';
import type { Ledger } from './traffic.ts';

/** Every log of a supervisor after the fault: log name (`__supervisor__` or the city) → its events. */
export type Logs = Map<string, JournalEvent[]>;

const SUPERVISOR = '__supervisor__';

/** The fields an event is identified by; a stream frame and the stored line must agree on all of them. */
const identity = (e: JournalEvent): string =>
  JSON.stringify([e.seq, e.type, e.ts, e.actor, e.subject ?? null, e.message ?? null]);

/** Each log's seqs are exactly 1..head, in order: nothing lost in the middle, duplicated or renumbered. */
export function checkSeqs(t: Test, logs: Logs): void {
  const broken = [...logs].filter(([, events]) => !isGapFree(events.map((e) => e.seq))).map(([n]) => n);
  const total = [...logs.values()].reduce((n, events) => n + events.length, 0);
  t.same(broken, [], `every log's seqs are exactly 1..head (${logs.size} logs, ${total} events)`);
}

/**
 * Every acknowledged write is in the logs exactly once, and no unacknowledged one landed twice:
 * emitted events by their unique message, beads by id, async requests by request_id.
 */
export function checkWrites(t: Test, logs: Logs, ledger: Ledger): void {
  const emitted = new Map<string, number>();
  const created = new Map<string, number>();
  for (const [name, events] of logs) {
    for (const e of events) {
      if (e.type === 'fault.write')
        emitted.set(`${name}/${e.message}`, (emitted.get(`${name}/${e.message}`) ?? 0) + 1);
      if (e.type === 'bead.created')
        created.set(`${name}/${e.subject}`, (created.get(`${name}/${e.subject}`) ?? 0) + 1);
    }
  }
  const lostEmits = [...ledger.emits].filter(([m, city]) => emitted.get(`${city}/${m}`) !== 1);
  t.same(lostEmits, [], `each of ${ledger.emits.size} acknowledged emits is in its city log exactly once`);
  t.same(
    [...emitted].filter(([, n]) => n > 1),
    [],
    `no emitted event landed twice (${emitted.size} landed, ${ledger.unknown} calls broke off unanswered)`,
  );
  const lostBeads = [...ledger.beads].filter(([id, city]) => created.get(`${city}/${id}`) !== 1);
  t.same(lostBeads, [], `each of ${ledger.beads.size} acknowledged beads has exactly one bead.created`);
  t.same(
    [...created].filter(([, n]) => n > 1),
    [],
    'no bead was created twice',
  );

  const accepted = new Map<string, number>();
  for (const e of logs.get(SUPERVISOR) ?? []) {
    const id = requestIdOf(e);
    if (e.type === 'request.accepted' && id) accepted.set(id, (accepted.get(id) ?? 0) + 1);
  }
  const acked = [...ledger.creates.keys(), ...ledger.unregisters.keys()];
  t.same(
    acked.filter((id) => accepted.get(id) !== 1),
    [],
    `each of ${acked.length} requests answered 202 is recorded as accepted exactly once`,
  );
}

/**
 * Exactly one terminal event (request.result.* or request.failed) per accepted request, over every log,
 * and none for a request that was never accepted.
 */
export function checkTerminals(t: Test, logs: Logs, ledger: Ledger): void {
  const accepted = new Set<string>();
  for (const e of logs.get(SUPERVISOR) ?? []) {
    const id = requestIdOf(e);
    if (e.type === 'request.accepted' && id) accepted.add(id);
  }
  const terminals = new Map<string, string[]>();
  for (const events of logs.values()) {
    for (const e of events) {
      const id = requestIdOf(e);
      if (id && isTerminal(e.type)) terminals.set(id, [...(terminals.get(id) ?? []), e.type]);
    }
  }
  const wrong = [...accepted]
    .filter((id) => terminals.get(id)?.length !== 1)
    .map((id) => [id, terminals.get(id)]);
  t.same(wrong, [], `each of ${accepted.size} accepted requests has exactly one terminal event`);
  t.same(
    [...terminals.keys()].filter((id) => !accepted.has(id)),
    [],
    'no terminal event belongs to a request that was never accepted',
  );
  const badCreates = [...ledger.creates.keys()].filter(
    (id) => !['request.result.city.create', 'request.failed'].includes(terminals.get(id)?.[0] ?? ''),
  );
  t.same(badCreates, [], 'creates end in request.result.city.create or request.failed');
  const failed = [...terminals.values()].filter((types) => types[0] === 'request.failed').length;
  t.comment(`terminals: ${terminals.size} (${failed} request.failed)`);
}

/**
 * The source log of each supervisor-stream frame. The wire `city` of a request result names the city it is
 * about, not the log it came from, so the source is read from the frame ids instead: each `id:` is the
 * whole composite cursor after its event, so exactly one pair moves, to the event's seq. A frame where
 * that does not hold is reported as `!<reason>`.
 */
export function frameSources(received: readonly Received[]): string[] {
  let prev = new Map<string, number>();
  return received.map(({ id, event }) => {
    const cursor = new Map(
      id.split(',').map((pair) => {
        const at = pair.lastIndexOf(':');
        return [pair.slice(0, at), Number(pair.slice(at + 1))] as const;
      }),
    );
    // A log that joins the stream appears as `<name>:0`, the same position as being absent.
    const moved = [...cursor].filter(([name, seq]) => (prev.get(name) ?? 0) !== seq);
    const gone = [...prev.keys()].filter((name) => !cursor.has(name));
    prev = cursor;
    if (moved.length !== 1 || gone.length > 0)
      return `!cursor ${id} moved ${moved.length} pairs, dropped ${gone.length}`;
    const [name, seq] = moved[0]!;
    return seq === event.seq ? name : `!cursor pair ${name}:${seq} for event seq ${event.seq}`;
  });
}

/**
 * A stream's frames, grouped by log, are that log's events 1..k in order with nothing skipped or repeated
 * (across every reconnect), and each frame is the stored event.
 */
export function checkStream(t: Test, follower: Follower, logs: Logs, what: string, city?: string): void {
  const byLog = new Map<string, JournalEvent[]>();
  const sources =
    city === undefined
      ? frameSources(follower.received)
      : follower.received.map(({ id, event }) =>
          id === String(event.seq) ? city : `!id ${id} on seq ${event.seq}`,
        );
  t.same(
    sources.filter((s) => s.startsWith('!')),
    [],
    `${what}: each frame id is ${city === undefined ? 'the composite cursor after its event' : 'its seq'}`,
  );
  follower.received.forEach(({ event }, i) => {
    const name = sources[i]!;
    byLog.set(name, [...(byLog.get(name) ?? []), event]);
  });
  const gaps: string[] = [];
  const mismatches: string[] = [];
  for (const [name, events] of byLog) {
    const seqs = events.map((e) => e.seq);
    if (!isGapFree(seqs)) gaps.push(`${name}: ${seqs.join(',')}`);
    const stored = logs.get(name) ?? [];
    for (const e of events) {
      const s = stored[e.seq - 1];
      if (!s || identity(s) !== identity(e)) mismatches.push(`${name}#${e.seq}`);
    }
  }
  t.same(follower.anomalies, [], `${what}: every frame is well formed`);
  t.same(
    gaps,
    [],
    `${what}: ${follower.received.length} events over ${byLog.size} logs, gap-free and duplicate-free across ` +
      `${follower.reconnects} reconnects`,
  );
  t.same(mismatches, [], `${what}: every frame is the stored event at its seq`);
}

const lastSeq = (events: readonly JournalEvent[]): number => events[events.length - 1]?.seq ?? 0;

/**
 * Waits until `follower` has received every event of `names` up to the heads in `logs` (one city when
 * `city` is given, else the supervisor stream's logs), within one `timeoutMs` for all of them. A stream
 * that does not catch up is one failure naming the logs that lag; `checkStream` then shows what was
 * received.
 */
export async function catchUp(
  t: Test,
  follower: Follower,
  logs: Logs,
  names: readonly string[],
  city?: string,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  const { timeoutMs = 15_000 } = options;
  const lagging = (received: readonly Received[]): string[] => {
    const counts = new Map<string, number>();
    if (city === undefined)
      for (const source of frameSources(received)) counts.set(source, (counts.get(source) ?? 0) + 1);
    else counts.set(city, lastSeq(received.map((r) => r.event)));
    return names
      .filter((name) => (counts.get(name) ?? 0) < lastSeq(logs.get(name) ?? []))
      .map((name) => `${name} at ${counts.get(name) ?? 0} of ${lastSeq(logs.get(name) ?? [])}`);
  };
  await follower
    .until((received) => lagging(received).length === 0, timeoutMs, `${names.length} logs to catch up`)
    .catch((err: Error) => {
      const behind = lagging(follower.received);
      t.fail(`${err.message}; behind: ${behind.slice(0, 8).join(', ')}${behind.length > 8 ? ', …' : ''}`, {
        lastId: follower.lastId,
      });
    });
}

/** Accepted requests that have no terminal event yet, in any log. */
export function unfinished(logs: Logs): string[] {
  const done = new Set<string>();
  for (const events of logs.values()) {
    for (const e of events) if (isTerminal(e.type)) done.add(requestIdOf(e) ?? '');
  }
  return (logs.get(SUPERVISOR) ?? [])
    .filter((e) => e.type === 'request.accepted' && !done.has(requestIdOf(e) ?? ''))
    .map((e) => requestIdOf(e) ?? '');
}
