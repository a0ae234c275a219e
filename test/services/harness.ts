import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { FileJournalBackend } from '../../actors/runtime/journal/fileJournal.ts';
import type { Journal, JournalEvent } from '../../actors/runtime/journal/journal.ts';
import { LogRuntime } from '../../actors/runtime/logRuntime/logRuntime.ts';
import {
  startWorkspaceServices,
  WORKSPACE_SERVICES,
} from '../../actors/workspaceServices/startWorkspaceServices.ts';
import type { WorkspaceServices } from '../../actors/workspaceServices/workspaceServices.ts';
import type { RestartPolicy } from '../../machines/workspaceServices/restartPolicy.ts';
import type { App } from '../../http/app.ts';
import { memoryApp } from '../helpers/app.ts';
import { waitForEvent } from '../helpers/supervisor.ts';

const here = dirname(fileURLToPath(import.meta.url));

/** The argv that runs the fixture service (HTTP, SSE, WebSocket echo) under tsx, from any directory. */
export const FIXTURE_COMMAND = [
  process.execPath,
  '--import',
  import.meta.resolve('tsx'),
  join(here, '..', 'fixtures', 'services', 'svcFixture.ts'),
];

/** A fixture `proxy_process` table named `name`. */
export const fixtureService = (
  name: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
  name,
  kind: 'proxy_process',
  ...extra,
  process: { command: FIXTURE_COMMAND, health_path: '/healthz' },
});

/** Fast supervision for tests: restarts after 50 ms, doubling. */
export const FAST_POLICY: Partial<RestartPolicy> = {
  initialMs: 50,
  factor: 2,
  maxMs: 400,
  stopGraceMs: 1000,
};

/** A running city with workspace services, served by an app on a real loopback port. */
export interface ServicesHarness {
  name: string;
  dir: string;
  base: string;
  app: App;
  journal: Journal;
  services: WorkspaceServices;
  /** The first event of the city log after `afterSeq` matching `pred`. */
  event(pred: (e: JournalEvent) => boolean, afterSeq?: number, timeoutMs?: number): Promise<JournalEvent>;
  head(): Promise<number>;
}

/** Starts the city's services from `tables` and an app serving them; `t` stops everything. */
export async function servicesHarness(
  t: Test,
  tables: Record<string, unknown>[],
  policy: Partial<RestartPolicy> = FAST_POLICY,
): Promise<ServicesHarness> {
  const name = `svc${randomBytes(3).toString('hex')}`;
  const dir = await mkdtemp(join(tmpdir(), 'gc-svc-'));
  const backend = new FileJournalBackend();
  const journal = await backend.open({ name, file: join(dir, '.gc', 'events.jsonl') });
  const log = new LogRuntime(journal);
  const services = await startWorkspaceServices(
    { name, path: dir, config: { agents: [], services: tables }, log },
    { policy },
  );
  const { app, deps } = await memoryApp();
  deps.cities.set({
    name,
    path: dir,
    journal,
    log,
    running: true,
    services: { [WORKSPACE_SERVICES]: services },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  t.teardown(async () => {
    await services.stop();
    await app.close();
    await log.close();
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  });
  return {
    name,
    dir,
    base: `http://127.0.0.1:${port}`,
    app,
    journal,
    services,
    event: (pred, afterSeq = 0, timeoutMs = 10_000) => waitForEvent(journal, pred, afterSeq, timeoutMs),
    head: () => journal.head(),
  };
}

/** The payload of a `service.*` event, loosely typed for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary payloads
export const payloadOf = (e: JournalEvent): any => e.payload;

/** True for a `type` event of service `service`. */
export const isServiceEvent =
  (type: string, service: string) =>
  (e: JournalEvent): boolean =>
    e.type === type && (e.payload as { service?: string } | undefined)?.service === service;
