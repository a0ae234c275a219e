import { join } from 'node:path';
import type { ProcReply } from '../helpers/supervisorProcess.ts';
import { isProblem, sleep, type Rng } from './kit.ts';

/** What the clients were told: every write the API acknowledged, and how the others ended. */
export interface Ledger {
  /** request_id → city name of each create answered 202. */
  creates: Map<string, string>;
  /** request_id → city name of each unregister answered 202. */
  unregisters: Map<string, string>;
  /** message → city of each emitted event answered 201. */
  emits: Map<string, string>;
  /** bead id → city of each bead create answered 201. */
  beads: Map<string, string>;
  /** `<op> <status>` → count, for the report. */
  outcomes: Map<string, number>;
  /** Calls that broke off without an answer (their outcome is unknown: they may or may not have landed). */
  unknown: number;
  /** Answers that were errors but not Problem Details, or 500s: each is a finding. */
  violations: string[];
}

export type Op = 'create' | 'unregister' | 'emit' | 'bead';

export interface TrafficOptions {
  call(method: string, path: string, body?: unknown): Promise<ProcReply>;
  /** Resolves when the server is (back) up; awaited after a call broke off. */
  up(): Promise<unknown>;
  /** Where new city directories go. */
  citiesDir: string;
  /** Cities that exist already and are never unregistered (streams follow them). */
  core: readonly string[];
  rng: Rng;
  workers: number;
  /** Relative weights of the operations. */
  weights?: Partial<Record<Op, number>>;
  /** Pause between one worker's calls. */
  pauseMs?: number;
}

const DEFAULT_WEIGHTS: Record<Op, number> = { create: 1, unregister: 1, emit: 4, bead: 3 };

/**
 * Mixed write traffic from several concurrent clients: city creates and unregisters, events emitted into
 * city logs, bead creates. Every acknowledged write is recorded in the ledger with a unique marker, so a
 * check after the fault can find it (exactly once) in the logs.
 */
export class Traffic {
  readonly ledger: Ledger = {
    creates: new Map(),
    unregisters: new Map(),
    emits: new Map(),
    beads: new Map(),
    outcomes: new Map(),
    unknown: 0,
    violations: [],
  };
  readonly #opts: TrafficOptions;
  readonly #known: Set<string>;
  #stopping = false;
  #running: Promise<void> | undefined;
  #cityN = 0;
  #writeN = 0;

  constructor(opts: TrafficOptions) {
    this.#opts = opts;
    this.#known = new Set(opts.core);
  }

  start(): void {
    const workers = Array.from({ length: this.#opts.workers }, () => this.#worker(this.#opts.rng.fork()));
    this.#running = Promise.all(workers).then(() => undefined);
  }

  /** Stops issuing calls and waits for the ones in flight. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#running;
  }

  /** Acknowledged writes so far (all kinds). */
  get acknowledged(): number {
    const l = this.ledger;
    return l.creates.size + l.unregisters.size + l.emits.size + l.beads.size;
  }

  #count(op: string, status: number | string): void {
    const key = `${op} ${status}`;
    this.ledger.outcomes.set(key, (this.ledger.outcomes.get(key) ?? 0) + 1);
  }

  async #worker(r: Rng): Promise<void> {
    const weights = { ...DEFAULT_WEIGHTS, ...this.#opts.weights };
    const ops = (Object.keys(weights) as Op[]).flatMap((op) => Array<Op>(weights[op]).fill(op));
    while (!this.#stopping) {
      const op = r.pick(ops);
      try {
        await this.#one(op, r);
      } catch {
        this.ledger.unknown++;
        this.#count(op, 'broken');
        await this.#opts.up().catch(() => undefined);
        await sleep(20);
      }
      if (this.#opts.pauseMs) await sleep(this.#opts.pauseMs);
    }
  }

  async #one(op: Op, r: Rng): Promise<void> {
    const { call, citiesDir, core } = this.#opts;
    const known = [...this.#known];
    const check = (reply: ProcReply, ok: number): boolean => {
      this.#count(op, reply.status);
      if (reply.status === ok) return true;
      if (reply.status >= 500 && reply.status !== 503) {
        this.ledger.violations.push(`${op}: ${reply.status} ${JSON.stringify(reply.body)}`);
      }
      if (!isProblem(reply.status, reply.headers.get('content-type'), reply.body)) {
        this.ledger.violations.push(
          `${op}: ${reply.status} is not Problem Details: ${JSON.stringify(reply.body)}`,
        );
      }
      return false;
    };
    switch (op) {
      case 'create': {
        const name = `c${++this.#cityN}`;
        const reply = await call('POST', '/v0/city', { dir: join(citiesDir, name), start_command: 'true' });
        if (check(reply, 202)) {
          this.ledger.creates.set(reply.body.request_id as string, name);
          this.#known.add(name);
        }
        return;
      }
      case 'unregister': {
        const candidates = known.filter((c) => !core.includes(c));
        if (candidates.length === 0) return;
        const name = r.pick(candidates);
        const reply = await call('POST', `/v0/city/${name}/unregister`);
        if (check(reply, 202)) {
          this.ledger.unregisters.set(reply.body.request_id as string, name);
          this.#known.delete(name);
        }
        return;
      }
      case 'emit': {
        const city = r.pick(known);
        const message = `w${++this.#writeN}`;
        const reply = await call('POST', `/v0/city/${city}/events`, {
          type: 'fault.write',
          actor: 'fault',
          message,
        });
        if (check(reply, 201)) this.ledger.emits.set(message, city);
        return;
      }
      case 'bead': {
        const city = r.pick(known);
        const reply = await call('POST', `/v0/city/${city}/beads`, { title: `b${++this.#writeN}` });
        if (check(reply, 201)) this.ledger.beads.set(reply.body.id as string, city);
        return;
      }
    }
  }
}

/** The ledger's outcome counts as one line (`emit 201×40, emit 404×3, …`). */
export const outcomeSummary = (ledger: Ledger): string =>
  [...ledger.outcomes.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, n]) => `${k}×${n}`)
    .join(', ');
