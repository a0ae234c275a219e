import { setTimeout as sleep } from 'node:timers/promises';
import type { Test } from 'tap';
import { isSeqConflict, OutcomeUnknownError } from '../../actors/runtime/errors.ts';
import type { AppendOptions, Journal, JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { draft } from './kit.ts';

/** How long a journal under test waits for the broker: per request, then to resolve an unanswered append. */
export interface BrokerPatience {
  requestMs: number;
  resolveMs: number;
}

/** What the cases need from a backend whose broker can stall or restart (JetStream). */
export interface BrokerFaults {
  /** An unused log on a backend with these timeouts; closed on `t`'s teardown. */
  fresh(t: Test, patience: BrokerPatience): Promise<Journal>;
  /** Freezes the broker (SIGSTOP): connections stay up, nothing is answered. */
  pause(): Promise<void>;
  /** Thaws it (SIGCONT). */
  resume(): Promise<void>;
  /** Stops and starts the broker on the same store. */
  restart(): Promise<void>;
}

type Verdict = 'stored' | 'refused' | 'unknown';

/** One append under a fault, tagged by a unique message so the log can be searched for it afterwards. */
interface Attempt {
  tag: string;
  answer: Promise<{ verdict: Verdict; detail: string }>;
}

function attempt(j: Journal, tag: string, options: AppendOptions = {}): Attempt {
  const answer = j.append(draft('fault.write', { message: tag }), options).then(
    (e) => ({ verdict: 'stored' as const, detail: `seq ${e.seq}` }),
    (err: unknown) => ({
      // Only the explicit "outcome unknown" may be followed by the event landing; any other error
      // (a fencing conflict, an unavailable broker) is a refusal and must stay one.
      verdict: err instanceof OutcomeUnknownError ? ('unknown' as const) : ('refused' as const),
      detail: isSeqConflict(err) ? 'conflict' : String((err as { detail?: string }).detail ?? err),
    }),
  );
  return { tag, answer };
}

/** `promise`, or a failure naming `what` after `ms`: a wait for a condition, bounded. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Appends until one is stored (the broker may still be coming back), and answers it. */
async function appendWhenUp(j: Journal, tag: string): Promise<JournalEvent> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await j.append(draft('fault.barrier', { message: tag }), { msgId: tag });
    } catch (err) {
      if (attempt > 100) throw err;
      await sleep(100);
    }
  }
}

/**
 * The truth rule over `attempts`: every stored append is in the log exactly once, every refused one
 * never, an unknown one at most once. The log is read after a later append through the same journal
 * was stored, so anything the broker still held from before has been processed by then.
 */
async function checkTruth(t: Test, j: Journal, attempts: Attempt[]): Promise<Map<string, Verdict>> {
  const answers = await Promise.all(attempts.map((a) => a.answer));
  await appendWhenUp(j, `barrier-${attempts.length}`);
  const landed = new Map<string, number>();
  for (const e of await j.list({ type: 'fault.write' })) {
    landed.set(e.message!, (landed.get(e.message!) ?? 0) + 1);
  }
  const lies: string[] = [];
  const verdicts = new Map<string, Verdict>();
  attempts.forEach(({ tag }, i) => {
    const { verdict, detail } = answers[i]!;
    verdicts.set(tag, verdict);
    const n = landed.get(tag) ?? 0;
    const truthful = verdict === 'stored' ? n === 1 : verdict === 'refused' ? n === 0 : n <= 1;
    if (!truthful) lies.push(`${tag}: answered ${verdict} (${detail}) but landed ${n} time(s)`);
  });
  t.same(lies, [], `each of ${attempts.length} answers is the truth about its write`);
  return verdicts;
}

/**
 * Conformance cases of a journal whose broker can stall or restart: "a write refused while the broker
 * is paused or restarting never appears in the log afterwards". An append may answer stored, refused
 * (never lands) or outcome unknown (may land); it may never answer refused and land later.
 */
export function refusedWriteCases(t: Test, faults: BrokerFaults): void {
  /**
   * Appends of every kind: two fenced at the same head (sent first, so the head is still theirs when
   * the broker gets to them), then unfenced ones without and with a msg id.
   */
  const mix = (j: Journal, round: string, head: number): Attempt[] => [
    attempt(j, `${round}-fenced-a`, { expectedSeq: head }),
    attempt(j, `${round}-fenced-b`, { expectedSeq: head }),
    attempt(j, `${round}-plain`),
    attempt(j, `${round}-keyed`, { msgId: `${round}-keyed` }),
  ];

  t.test('a write refused while the broker is paused never appears in the log afterwards', async (t) => {
    // Paused for longer than the journal waits: every answer comes while the broker is still frozen,
    // and the writes are still in its socket buffer, to be stored once it thaws.
    const j = await faults.fresh(t, { requestMs: 300, resolveMs: 300 });
    const head = (await j.append(draft('before'))).seq;
    await faults.pause();
    let attempts: Attempt[] = [];
    try {
      attempts = mix(j, 'stalled', head);
      await Promise.all(attempts.map((a) => a.answer));
    } finally {
      await faults.resume();
    }
    const verdicts = await checkTruth(t, j, attempts);
    const answers = await Promise.all(
      attempts.map(async (a) => `${a.tag}: ${JSON.stringify(await a.answer)}`),
    );
    t.notOk([...verdicts.values()].includes('stored'), 'nothing was confirmed while the broker was frozen', {
      answers,
    });
  });

  t.test('an append in flight across a short pause is resolved: stored once, or refused', async (t) => {
    // The first publish times out while the broker is frozen; the journal resolves it after the thaw.
    const j = await faults.fresh(t, { requestMs: 300, resolveMs: 15_000 });
    const head = (await j.append(draft('before'))).seq;
    await faults.pause();
    const attempts = mix(j, 'short', head);
    // The outage: longer than one request, far shorter than the resolve bound.
    await sleep(900);
    await faults.resume();
    const verdicts = await checkTruth(t, j, attempts);
    t.same(
      [...verdicts.values()].filter((v) => v === 'unknown'),
      [],
      'every in-flight append was resolved within the bound',
    );
    const fenced = [verdicts.get('short-fenced-a'), verdicts.get('short-fenced-b')].sort();
    t.same(fenced, ['refused', 'stored'], 'of two appends fenced at one head, one is stored');
  });

  t.test('a write refused while the broker restarts never appears in the log afterwards', async (t) => {
    const j = await faults.fresh(t, { requestMs: 1000, resolveMs: 1000 });
    await j.append(draft('before'));
    type Phase = 'before' | 'restarting' | 'after';
    let phase: Phase = 'before';
    const attempts: Attempt[] = [];
    const issued: Record<Phase, Attempt[]> = { before: [], restarting: [], after: [] };
    // Resolves once an append issued in `phase` was stored: the writers run until then, not for a fixed time.
    const storedIn = (p: Phase) => {
      let reached!: () => void;
      const promise = new Promise<void>((r) => (reached = r));
      return { phase: p, promise, reached };
    };
    const marks = [storedIn('before'), storedIn('after')];
    const answered = new Set<Attempt>();
    const issue = (tag: string, options: AppendOptions): Attempt => {
      const a = attempt(j, tag, options);
      const at = phase;
      attempts.push(a);
      issued[at].push(a);
      void a.answer.then(({ verdict }) => {
        answered.add(a);
        if (verdict === 'stored') marks.find((m) => m.phase === at)?.reached();
      });
      return a;
    };
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        await issue(`restart-${i}`, i % 2 ? { msgId: `restart-${i}` } : {}).answer;
      }
    })();
    const fenced = (async () => {
      for (let i = 0; writing; i++) {
        const expectedSeq = await j.head().catch(() => 0);
        await issue(`restart-fenced-${i}`, { expectedSeq }).answer;
      }
    })();
    let inFlight = 0;
    try {
      await within(marks[0]!.promise, 20_000, 'an append stored before the restart');
      phase = 'restarting';
      // The writer always waits on an append, so one is normally in flight as the broker goes down.
      inFlight = attempts.filter((a) => !answered.has(a)).length;
      await faults.restart();
      phase = 'after';
      await within(marks[1]!.promise, 30_000, 'an append issued after the restart stored');
    } finally {
      writing = false;
      await Promise.all([writer, fenced]);
    }
    t.ok(
      inFlight + issued.restarting.length > 0,
      `appends were in flight (${inFlight}) or issued (${issued.restarting.length}) across the restart`,
    );
    await checkTruth(t, j, attempts);
  });
}
