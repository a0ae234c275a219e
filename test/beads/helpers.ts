import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import {
  BEAD_SERVICE,
  startBeadService,
  type BeadService,
  type BeadServiceOptions,
} from '../../actors/beads/index.ts';
import { FileJournalBackend } from '../../actors/runtime/journal/fileJournal.ts';
import { JetStreamJournalBackend } from '../../actors/runtime/journal/jetstreamJournal.ts';
import type { Journal, JournalBackend, JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { MemoryJournalBackend } from '../../actors/runtime/journal/memoryJournal.ts';
import type { App } from '../../http/app.ts';
import type { Bead } from '../../schemas/beads.ts';
import type { AppDeps } from '../../http/deps.ts';
import { memoryApp } from '../helpers/app.ts';
import { withJetStream } from '../helpers/nats.ts';

export type BackendKind = 'memory' | 'file' | 'jetstream';

/** Opens backends over one storage, so a later backend sees what an earlier one wrote (a restart). */
export type BackendFactory = () => JournalBackend;

/** One backend kind set up for a group of tests: each `storage()` is a fresh, private place for logs. */
export interface BackendEnv {
  kind: BackendKind;
  storage(): BackendFactory;
}

/**
 * Sets up backends of `kind` for the tests under `t`: the memory backend, the file backend (logs go
 * in each city's temp dir), or JetStream on a private nats-server started here, stopped on teardown
 * (each storage gets a random stream prefix). Resolves undefined when nats-server is missing outside
 * CI; `t` is then planned as skipped.
 */
export async function backendEnv(t: Test, kind: BackendKind): Promise<BackendEnv | undefined> {
  if (kind === 'memory') {
    return {
      kind,
      storage: () => {
        const store = new Map<string, JournalEvent[]>();
        return () => new MemoryJournalBackend(store);
      },
    };
  }
  if (kind === 'file') return { kind, storage: () => () => new FileJournalBackend() };
  const nats = await withJetStream(t);
  if (!nats) return undefined;
  return {
    kind,
    storage: () => {
      const prefix = `b${randomBytes(4).toString('hex')}`;
      return () => new JetStreamJournalBackend({ servers: nats.url, prefix });
    },
  };
}

/** The backends the HTTP tests run on: both real ones; `BEADS_BACKENDS=memory` for a quick local run. */
export const BACKENDS: BackendKind[] = (process.env.BEADS_BACKENDS?.split(',') as
  BackendKind[] | undefined) ?? ['file', 'jetstream'];

let cities = 0;

/** A running city with a bead store, served by an app, that can be restarted from its log. */
export interface CityHarness {
  name: string;
  app: App;
  deps: AppDeps;
  journal: Journal;
  service: BeadService;
  /** The city's directory (its log and snapshot live under `.gc/`). */
  citydir: string;
  /** `/v0/city/<name>` */
  base: string;
  /** Stops the store, closes the backend, reopens the log on a new backend and rebuilds the store. */
  restart(): Promise<void>;
}

/**
 * Starts a city named uniquely on a backend of `env` and attaches it, running, with its bead store in
 * `services.beads`, to a fresh app. `wrap` may stand in front of the first journal (to delay or fail
 * its appends). Everything is closed on teardown.
 */
export async function cityHarness(
  t: Test,
  env: BackendEnv,
  options: BeadServiceOptions & { wrap?: (journal: Journal) => Journal } = {},
): Promise<CityHarness> {
  const factory = env.storage();
  const name = `city${++cities}-${randomBytes(3).toString('hex')}`;
  const dir = await mkdtemp(join(tmpdir(), 'gc-city-'));
  const location = { name, file: join(dir, '.gc', 'events.jsonl') };
  const { app, deps } = await memoryApp();
  let backend = factory();
  const opened = await backend.open(location);
  const journal = options.wrap ? options.wrap(opened) : opened;
  const service = await startBeadService({ name, path: dir, journal }, options);
  const harness: CityHarness = {
    name,
    app,
    deps,
    journal,
    service,
    citydir: dir,
    base: `/v0/city/${name}`,
    restart: async () => {
      await harness.service.stop();
      await backend.close();
      backend = factory();
      harness.journal = await backend.open(location);
      harness.service = await startBeadService({ name, path: dir, journal: harness.journal }, options);
      attach(deps, harness);
    },
  };
  attach(deps, harness);
  t.teardown(async () => {
    await app.close();
    await harness.service.stop();
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  });
  return harness;
}

function attach(deps: AppDeps, h: CityHarness): void {
  deps.cities.set({
    name: h.name,
    path: h.citydir,
    journal: h.journal,
    running: true,
    services: { [BEAD_SERVICE]: h.service.service },
  });
}

/** Headers of a mutation (the anti-CSRF marker, plus any given). */
export const mutation = (extra: Record<string, string> = {}) => ({ 'x-gc-request': '1', ...extra });

/** Runs `body` once per backend in {@link BACKENDS}, each under its own subtest. */
export function forEachBackend(t: Test, body: (t: Test, env: BackendEnv) => Promise<void>): void {
  for (const kind of BACKENDS) {
    t.test(`on the ${kind} journal`, async (t) => {
      const env = await backendEnv(t, kind);
      if (env) await body(t, env);
    });
  }
}

/** A JSON request to the harness's city: `call(h, 'POST', '/beads', body)`; mutations get X-GC-Request. */
export function call(
  h: CityHarness,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  payload?: unknown,
  headers: Record<string, string> = {},
) {
  return h.app.inject({
    method,
    url: `${h.base}${path}`,
    headers: method === 'GET' ? headers : mutation(headers),
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

/** Creates a bead over HTTP and answers it (fails the test on a non-201). */
export async function createBead(t: Test, h: CityHarness, body: Record<string, unknown>): Promise<Bead> {
  const res = await call(h, 'POST', '/beads', body);
  t.equal(res.statusCode, 201, `create ${JSON.stringify(body)}: ${res.body}`);
  return res.json();
}

/**
 * Resolves once a blocking query on `h`'s bead store starts to wait, with whether it really waits (the
 * store had not yet folded past the query's index) rather than answering at once: a test that appends
 * after this cannot pass without the query having blocked.
 */
export function nextWait(h: CityHarness): Promise<boolean> {
  const store = h.service.service;
  const waitForIndex = store.waitForIndex;
  return new Promise((resolve) => {
    store.waitForIndex = (index, timeoutMs, signal) => {
      store.waitForIndex = waitForIndex;
      resolve(store.index <= index);
      return waitForIndex.call(store, index, timeoutMs, signal);
    };
  });
}

/**
 * A journal whose appends wait while the gate is shut: `shut()`, then `open()` to let them through.
 * `held()` resolves once an append is waiting at the shut gate.
 */
export function gatedJournal(
  journal: Journal,
): Journal & { shut(): void; open(): void; held(): Promise<void> } {
  let gate: Promise<void> | undefined;
  let release = () => {};
  let arrived = () => {};
  let arrival = new Promise<void>((r) => (arrived = r));
  return {
    name: journal.name,
    list: (filter) => journal.list(filter),
    head: () => journal.head(),
    subscribe: (afterSeq) => journal.subscribe(afterSeq),
    close: () => journal.close(),
    append: async (draft, options) => {
      if (gate) arrived();
      await gate;
      return journal.append(draft, options);
    },
    shut: () => {
      gate = new Promise((resolve) => (release = resolve));
      arrival = new Promise<void>((r) => (arrived = r));
    },
    open: () => {
      gate = undefined;
      release();
    },
    held: () => arrival,
  };
}
