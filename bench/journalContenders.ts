/**
 * The contenders of `bench/journal.ts`: raw JetStream through the nats.js client (the floor), and any
 * journal backend through the `Journal` interface. Each measures the same operations on the same event.
 */
import { DiscardPolicy, jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { join } from 'node:path';
import type { JournalDraft, Journal, JournalBackend } from '../actors/runtime/journal/journal.ts';
import { pacedLatency, readRate, throughput, type LatencyFigures } from './journalKit.ts';

/** How much each measurement does. */
export interface Sizes {
  sequential: number;
  pipelined: number;
  latency: number;
  /** Appends in flight in the pipelined measurement. */
  window: number;
  rate_per_s: number;
  rounds: number;
  /** Latency samples dropped at the start. */
  warmup: number;
}

/** One thing being measured; every throughput method runs one round on fresh data. */
export interface Contender {
  readonly name: string;
  readonly serverVersion?: string;
  warm(): Promise<void>;
  sequential(round: number): Promise<number>;
  pipelined(round: number): Promise<number>;
  /** Reads the first pipelined round's events from the start; events per second. */
  replay(): Promise<number>;
  latency(): Promise<LatencyFigures>;
  close(): Promise<void>;
}

/** A typical small event, the same for every contender. */
export const BENCH_EVENT: JournalDraft = {
  type: 'bead.created',
  actor: 'bench',
  subject: 'gc-1',
  // A whole bead as the store records one (status and created_at too): a payload that misses a field its
  // schema requires goes through Value.Repair on every frame, which is what a replay then measures.
  payload: {
    bead: {
      id: 'gc-1',
      issue_type: 'task',
      title: 'a typical small payload',
      status: 'open',
      created_at: '2026-01-01T00:00:00Z',
    },
  },
};

/**
 * Plain `js.publish` (no msg id, no expectation) to file-backed streams, and library-default ordered
 * consumers. Effects: one NATS connection; creates streams `RAW_*`.
 */
export async function rawContender(url: string, sizes: Sizes): Promise<Contender> {
  const nc = await connect({ servers: url });
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const body = JSON.stringify({ ...BENCH_EVENT, ts: new Date().toISOString() });
  const stream = async (name: string): Promise<string> => {
    const subject = `raw.${name.toLowerCase()}`;
    await jsm.streams.add({
      name,
      subjects: [subject],
      storage: StorageType.File,
      discard: DiscardPolicy.Old,
    });
    return subject;
  };
  /**
   * Creates an ordered consumer on `name` from seq 1; the returned function reads seqs 1..n through it,
   * calling `each` per message, then deletes it.
   */
  const reader = async (name: string) => {
    const consumer = await js.consumers.get(name, { opt_start_seq: 1 });
    const messages = await consumer.consume();
    return async (n: number, each: (seq: number) => void = () => {}) => {
      for await (const m of messages) {
        each(m.seq);
        if (m.seq >= n) break;
      }
      await consumer.delete();
    };
  };
  return {
    name: 'raw_jetstream',
    serverVersion: nc.info?.version,
    async warm() {
      const subject = await stream('RAW_WARM');
      await throughput(2000, sizes.window, () => js.publish(subject, body));
      await throughput(500, 1, () => js.publish(subject, body));
    },
    async sequential(round) {
      const subject = await stream(`RAW_SEQ_${round}`);
      return throughput(sizes.sequential, 1, () => js.publish(subject, body));
    },
    async pipelined(round) {
      const subject = await stream(`RAW_PIPE_${round}`);
      return throughput(sizes.pipelined, sizes.window, () => js.publish(subject, body));
    },
    replay: () => readRate(sizes.pipelined, async () => (await reader('RAW_PIPE_0'))(sizes.pipelined)),
    async latency() {
      const subject = await stream('RAW_LAT');
      return pacedLatency(
        sizes.latency,
        sizes.rate_per_s,
        sizes.warmup,
        () => js.publish(subject, body),
        async (received) => {
          const read = await reader('RAW_LAT');
          const reading = read(sizes.latency, (seq) => received(seq - 1));
          return () => reading;
        },
      );
    },
    close: () => nc.close(),
  };
}

/** `backend` measured through `Journal`: appends, a subscription from 0, append→subscriber latency. */
export function journalContender(
  name: string,
  backend: JournalBackend,
  dir: string,
  sizes: Sizes,
): Contender {
  const open = (log: string): Promise<Journal> =>
    backend.open({ name: log, file: join(dir, log, '.gc', 'events.jsonl') });
  /** Subscribes from 0 and reads seqs 1..n, calling `each` per event. */
  const read = async (journal: Journal, n: number, each: (seq: number) => void = () => {}) => {
    const sub = journal.subscribe(0);
    for await (const e of sub) {
      each(e.seq);
      if (e.seq >= n) break;
    }
    await sub.close();
  };
  return {
    name,
    async warm() {
      const log = await open('warm');
      await throughput(2000, sizes.window, () => log.append(BENCH_EVENT));
      await throughput(500, 1, () => log.append(BENCH_EVENT));
    },
    async sequential(round) {
      const log = await open(`sequential${round}`);
      return throughput(sizes.sequential, 1, () => log.append(BENCH_EVENT));
    },
    async pipelined(round) {
      const log = await open(`pipelined${round}`);
      return throughput(sizes.pipelined, sizes.window, () => log.append(BENCH_EVENT));
    },
    async replay() {
      const log = await open('pipelined0');
      return readRate(sizes.pipelined, () => read(log, sizes.pipelined));
    },
    async latency() {
      const log = await open('latency');
      return pacedLatency(
        sizes.latency,
        sizes.rate_per_s,
        sizes.warmup,
        () => log.append(BENCH_EVENT),
        async (received) => {
          const reading = read(log, sizes.latency, (seq) => received(seq - 1));
          return () => reading;
        },
      );
    },
    close: () => backend.close(),
  };
}
