import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { SeqConflictError } from '../../actors/runtime/errors.ts';
import type {
  Journal,
  JournalBackend,
  JournalEvent,
  LogLocation,
} from '../../actors/runtime/journal/journal.ts';
import { LogRuntime } from '../../actors/runtime/logRuntime/logRuntime.ts';
import type { LogFolder } from '../../actors/runtime/logRuntime/decision.ts';
import type { EventDraft } from '../../schemas/event.ts';
import { recordOf } from '../../machines/recorded.ts';
import { draft, take } from './kit.ts';

/** How a child process opens the same backend (for the crash case); absent for in-memory backends. */
export type ChildBackend = (location: LogLocation) => string[];

const CHILD = fileURLToPath(new URL('../helpers/batchWriterChild.ts', import.meta.url));

/** Records of batch `k`: three events that must land together. Any type reads best here. */
const batch = (k: number) =>
  [0, 1, 2].map((i) =>
    recordOf({ type: 'batch.part', actor: 'tester', payload: { k, i } } as unknown as EventDraft),
  );

/** Every batch in `events` is whole, in order, and consecutive; answers how many there are. */
function checkWhole(t: Test, events: readonly JournalEvent[]): number {
  const parts = events.filter((e) => e.type === 'batch.part');
  t.equal(parts.length % 3, 0, `${parts.length} parts: whole batches only`);
  for (let j = 0; j + 2 < parts.length; j += 3) {
    const [a, b, c] = [parts[j]!, parts[j + 1]!, parts[j + 2]!];
    const ks = [a, b, c].map((e) => (e.payload as { k: number }).k);
    const is = [a, b, c].map((e) => (e.payload as { i: number }).i);
    if (ks[0] !== ks[1] || ks[1] !== ks[2] || is.join() !== '0,1,2' || c.seq - a.seq !== 2) {
      t.fail(`batch at seq ${a.seq} is torn: k=${ks.join()} i=${is.join()}`);
    }
  }
  return parts.length / 3;
}

/**
 * The log runtime's cases on a backend: atomic multi-record batches (also across a SIGKILL of the writer),
 * deciders of two runtimes fenced on one log, and every folder seeing each event once, in order.
 */
export function batchCases(
  t: Test,
  fresh: (t: Test) => Promise<Journal>,
  harness: { backend(): Promise<JournalBackend>; location(): LogLocation; child?: ChildBackend },
): void {
  t.test('a batch lands whole and consecutive, listed and streamed alike', async (t) => {
    const j = await fresh(t);
    await j.append(draft('before'));
    const stored = await j.appendBatch!([draft('x'), draft('y'), draft('z')], { expectedSeq: 1 });
    t.same(
      stored.map((e) => [e.seq, e.type]),
      [
        [2, 'x'],
        [3, 'y'],
        [4, 'z'],
      ],
    );
    t.same(
      (await j.list()).map((e) => e.type),
      ['before', 'x', 'y', 'z'],
    );
    t.equal(await j.head(), 4);
    const sub = j.subscribe(0);
    t.same(
      (await take(sub, 4)).map((e) => e.seq),
      [1, 2, 3, 4],
    );
    await sub.close();
  });

  t.test('a batch on a stale head is refused whole', async (t) => {
    const j = await fresh(t);
    await j.append(draft('a'));
    await t.rejects(j.appendBatch!([draft('x'), draft('y')], { expectedSeq: 0 }), SeqConflictError);
    t.same(
      (await j.list()).map((e) => e.type),
      ['a'],
    );
  });

  t.test('a batch retried with its msg id is stored once', async (t) => {
    const j = await fresh(t);
    const first = await j.appendBatch!([draft('x'), draft('y')], { msgId: 'batch-1', expectedSeq: 0 });
    const again = await j.appendBatch!([draft('x'), draft('y')], { msgId: 'batch-1' });
    t.same(
      again.map((e) => e.seq),
      first.map((e) => e.seq),
    );
    t.equal(await j.head(), 2);
  });

  t.test(
    'deciders of two runtimes on one log are fenced; every folder sees each event once, in order',
    async (t) => {
      const j = await fresh(t);
      const seen: number[][] = [[], []];
      const folders: LogFolder[] = seen.map((s) => ({
        fold: (events) => s.push(...events.map((e) => e.seq)),
      }));
      const runtimes = [new LogRuntime(j), new LogRuntime(j)];
      await Promise.all(runtimes.map((r, i) => r.attach(folders[i]!, 0)));
      await Promise.all(
        Array.from({ length: 12 }, (_, k) =>
          runtimes[k % 2]!.run(() => ({ records: batch(k), commit: () => undefined })),
        ),
      );
      await Promise.all(runtimes.map((r) => r.catchUp()));
      const events = await j.list();
      t.equal(checkWhole(t, events), 12);
      for (const s of seen)
        t.same(
          s,
          events.map((e) => e.seq),
          'each event once, in seq order',
        );
      await Promise.all(runtimes.map((r) => r.close()));
    },
  );

  if (!harness.child) return;
  const child = harness.child;
  t.test('a writer SIGKILLed mid-stream leaves only whole batches, and every acknowledged one', async (t) => {
    for (let round = 0; round < 3; round++) {
      const location = harness.location();
      const acked = await killWriterAfter(child(location), 5 + round * 7);
      const backend = await harness.backend();
      const j = await backend.open(location);
      const events = await j.list();
      const whole = checkWhole(t, events);
      t.ok(whole >= acked, `round ${round}: ${acked} acknowledged, ${whole} whole batches in the log`);
      t.equal(await j.head(), events.length, 'the head is the last whole batch');
      await backend.close();
    }
  });
}

/** Runs the writer child until it has acknowledged `n` batches, then SIGKILLs it; answers the acks seen. */
function killWriterAfter(args: string[], n: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import=tsx', CHILD, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let acked = 0;
    let err = '';
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    proc.stdout.on('data', (d: Buffer) => {
      acked += d
        .toString()
        .split('\n')
        .filter((l) => l === 'ack').length;
      // Killed at once, mid-way through whatever the writer does next.
      if (acked >= n && !proc.killed) proc.kill('SIGKILL');
    });
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(acked);
      else reject(new Error(`writer exited ${code}: ${err}`));
    });
  });
}
