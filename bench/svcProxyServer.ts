/**
 * The supervisor side of `bench/svcProxy.ts`, run as its own process so the load generator never shares its
 * event loop: one city on the file journal whose one workspace service is the test fixture (HTTP, SSE,
 * WebSocket), served by the app on a loopback port. Prints `{"port":…,"socketPath":…,"servicePid":…}` once the
 * service is ready; exits on SIGTERM after stopping it. Effects: a temp dir, a child process, loopback sockets.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileJournalBackend } from '../actors/runtime/journal/fileJournal.ts';
import { LogRuntime } from '../actors/runtime/logRuntime/logRuntime.ts';
import {
  startWorkspaceServices,
  WORKSPACE_SERVICES,
} from '../actors/workspaceServices/startWorkspaceServices.ts';
import { memoryApp } from '../test/helpers/app.ts';

/** The repository root, from bench/ or dist/bench/. */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

const root = repoRoot();
const fixture = join(root, 'test', 'fixtures', 'services', 'svcFixture.ts');
const dir = await mkdtemp(join(tmpdir(), 'gc-bench-svc-'));
const backend = new FileJournalBackend();
const journal = await backend.open({ name: 'bench', file: join(dir, '.gc', 'events.jsonl') });
const log = new LogRuntime(journal);
const table = {
  name: 'fix',
  kind: 'proxy_process',
  process: {
    command: [process.execPath, '--import', import.meta.resolve('tsx'), fixture],
    health_path: '/healthz',
  },
};
const services = await startWorkspaceServices({
  name: 'bench',
  path: dir,
  config: { agents: [], services: [table] },
  log,
});
const { app, deps } = await memoryApp();
deps.cities.set({
  name: 'bench',
  path: dir,
  journal,
  log,
  running: true,
  services: { [WORKSPACE_SERVICES]: services },
});
await app.listen({ port: 0, host: '127.0.0.1' });
for (let route = services.route('fix'); !route?.ok; route = services.route('fix'))
  await new Promise((resolve) => setTimeout(resolve, 20));
const route = services.route('fix');
const [ready] = await journal.list({ type: 'service.ready', order: 'desc', limit: 1 });
process.stdout.write(
  JSON.stringify({
    port: (app.server.address() as AddressInfo).port,
    socketPath: route?.ok ? route.socketPath : '',
    servicePid: (ready?.payload as { pid?: number } | undefined)?.pid ?? 0,
  }) + '\n',
);
process.once('SIGTERM', () => {
  void (async () => {
    await services.stop();
    await app.close();
    await log.close();
    await backend.close();
    await rm(dir, { recursive: true, force: true });
    process.exit(0);
  })();
});
