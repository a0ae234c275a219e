import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { CONFIG_SERVICE } from '../../actors/config/configApi.ts';
import { ConfigService } from '../../actors/config/configService.ts';
import { FileJournalBackend } from '../../actors/runtime/journal/fileJournal.ts';
import type {
  Journal,
  JournalBackend,
  JournalDraft,
  JournalEvent,
} from '../../actors/runtime/journal/journal.ts';
import { LogRuntime } from '../../actors/runtime/logRuntime/logRuntime.ts';
import type { App } from '../../http/app.ts';
import type { AppDeps } from '../../http/deps.ts';
import { memoryApp } from '../helpers/app.ts';
import { recordingLogger } from '../helpers/recordingLogger.ts';
import { refusingBackend } from '../helpers/refusingBackend.ts';

let cities = 0;
let shared: Promise<{ app: App; deps: AppDeps }> | undefined;

/**
 * One app for every city of a test file: an app's first request compiles every route's schemas, which
 * costs seconds, so the cities of a file share it (each under its own name). Closed when the file ends.
 */
function sharedApp(t: Test): Promise<{ app: App; deps: AppDeps }> {
  if (!shared) {
    shared = memoryApp();
    let root: Test = t;
    while (root.parent) root = root.parent as Test;
    root.teardown(async () => (await shared!).app.close());
  }
  return shared;
}

/** A city.toml with one agent, a city provider, a rig and a patch of each kind. */
export const CITY_TOML = `[workspace]
name = "demo"
provider = "mock"

[providers.fast]
command = "echo"
args = ["hello"]

[[agent]]
name = "mayor"
provider = "mock"

[[agent]]
name = "worker"
dir = "app"
provider = "fast"

[[rigs]]
name = "app"
path = "app"
prefix = "ap"

[[patches.agent]]
dir = "app"
name = "worker"
suspended = true

[[patches.providers]]
name = "claude"
ready_delay_ms = 5

[[patches.rigs]]
name = "app"
prefix = "zz"
`;

/** A running city with the config service on a file journal, served by the real app. */
export interface ConfigHarness {
  name: string;
  dir: string;
  app: App;
  deps: AppDeps;
  journal: Journal;
  log: LogRuntime;
  service: ConfigService;
  base: string;
  /** city.toml's text now. */
  toml(): Promise<string>;
  /** The city log's config events (`config.changed`, `agent.config_changed`). */
  configEvents(): Promise<JournalEvent[]>;
  /** Makes the next appends of the city log fail (the journal's 503) while `on` is true. */
  refuse(on: boolean): void;
}

export interface HarnessOptions {
  toml?: string;
  pollMs?: number;
  /** Files to write under the city directory before the start (`packs/base/pack.toml` …). */
  files?: Record<string, string>;
}

export async function configHarness(t: Test, options: HarnessOptions = {}): Promise<ConfigHarness> {
  const name = `ccity${++cities}-${randomBytes(3).toString('hex')}`;
  const dir = await mkdtemp(join(tmpdir(), 'gc-config-'));
  await writeFile(join(dir, 'city.toml'), options.toml ?? CITY_TOML);
  for (const [file, text] of Object.entries(options.files ?? {})) {
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, file, '..'), { recursive: true });
    await writeFile(join(dir, file), text);
  }
  let refusing = false;
  const backend: JournalBackend = refusingBackend(new FileJournalBackend(), (_log, draft: JournalDraft) => {
    return refusing && draft.type.startsWith('config');
  });
  const journal = await backend.open({ name, file: join(dir, '.gc', 'events.jsonl') });
  const log = new LogRuntime(journal, 0);
  const service = new ConfigService({
    city: name,
    path: dir,
    log,
    logger: recordingLogger().logger,
    pollMs: options.pollMs ?? 0,
  });
  await service.start();
  const { app, deps } = await sharedApp(t);
  deps.cities.set({ name, path: dir, journal, running: true, services: { [CONFIG_SERVICE]: service } });
  t.teardown(async () => {
    deps.cities.remove(name);
    await service.stop();
    await log.close();
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  });
  return {
    name,
    dir,
    app,
    deps,
    journal,
    log,
    service,
    base: `/v0/city/${name}`,
    toml: () => readFile(join(dir, 'city.toml'), 'utf8'),
    configEvents: async () =>
      (await journal.list({ afterSeq: 0 })).filter(
        (e) => e.type === 'config.changed' || e.type === 'agent.config_changed',
      ),
    refuse: (on) => void (refusing = on),
  };
}

/** A JSON request to the harness's city; mutations get X-GC-Request. */
export async function call(
  h: ConfigHarness,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  payload?: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  const res = await h.app.inject({
    method,
    url: `${h.base}${path}`,
    headers: {
      ...(method === 'GET' ? {} : { 'x-gc-request': '1' }),
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  });
  return { status: res.statusCode, body: res.body ? res.json() : undefined, headers: res.headers };
}
