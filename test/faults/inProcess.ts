import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../actors/supervisor/supervisorConfig.ts';
import { FileJournalBackend } from '../../actors/runtime/journal/fileJournal.ts';
import type { JournalBackend } from '../../actors/runtime/journal/journal.ts';
import { Supervisor } from '../../actors/supervisor/supervisor.ts';
import { buildApp, type App } from '../../http/app.ts';
import { FAMILIES } from '../../http/families.ts';
import { servicesOf } from '../../http/family.ts';
import { fakeHost } from '../helpers/supervisor.ts';
import { sleep } from './kit.ts';

/** One injected answer, parsed. */
export interface Injected {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
  body: any;
  contentType: string | undefined;
  headers: Record<string, unknown>;
}

/** A supervisor in this process served by an app that is never listened on (requests are injected). */
export interface InProcessSupervisor {
  app: App;
  supervisor: Supervisor;
  /** `$HOME` of creates: city directories go here. */
  home: string;
  gcHome: string;
  /** A JSON request; mutations carry X-GC-Request unless `headers` says otherwise. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Injected>;
  /** Creates `name` under `home` and waits until it runs. Throws when it does not within 10 s. */
  createCity(name: string): Promise<void>;
  /** Waits until `name` runs (after a restart). Throws when it does not within 10 s. */
  running(name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a supervisor over `backend` (default: the file journal) with `$GC_HOME` and `$HOME` under `root`,
 * and an app over it (buildApp, as `runSupervisor` does, minus the socket). The caller closes it.
 */
export async function inProcessSupervisor(
  root: string,
  opts: { backend?: JournalBackend; readOnly?: boolean } = {},
): Promise<InProcessSupervisor> {
  const home = join(root, 'home');
  const gcHome = join(root, 'gchome');
  mkdirSync(home, { recursive: true });
  const config = loadConfig({ GC_HOME: gcHome, GC_PORT: '0', GC_BIND: '127.0.0.1', GC_TICK: '200ms' });
  const backend = opts.backend ?? new FileJournalBackend();
  const supervisor = await Supervisor.start(config, backend, {
    host: fakeHost(home),
    services: servicesOf(FAMILIES),
  });
  const app = await buildApp({
    config,
    cities: supervisor.live,
    readOnly: opts.readOnly ?? false,
    supervisor,
  });
  const call: InProcessSupervisor['call'] = async (method, path, body, headers = {}) => {
    const res = await app.inject({
      method: method as 'GET',
      url: path,
      headers: {
        ...(method === 'GET' ? {} : { 'x-gc-request': 'fault-test' }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    let parsed: unknown = res.body;
    try {
      parsed = res.body === '' ? undefined : JSON.parse(res.body);
    } catch {
      // Not JSON: keep the text.
    }
    const type = res.headers['content-type'];
    return {
      status: res.statusCode,
      body: parsed,
      contentType: typeof type === 'string' ? type : undefined,
      headers: res.headers,
    };
  };
  const running = async (name: string): Promise<void> => {
    const deadline = Date.now() + 10_000;
    while (!supervisor.live.get(name)?.running) {
      if (Date.now() > deadline) throw new Error(`city ${name} did not start`);
      await sleep(20);
    }
    await supervisor.settled();
  };
  return {
    app,
    supervisor,
    home,
    gcHome,
    call,
    createCity: async (name) => {
      const reply = await call('POST', '/v0/city', { dir: join(home, name), start_command: 'true' });
      if (reply.status !== 202) {
        throw new Error(`create ${name}: ${reply.status} ${JSON.stringify(reply.body)}`);
      }
      await running(name);
    },
    running,
    close: async () => {
      await app.close();
      await supervisor.close();
      await backend.close();
    },
  };
}
