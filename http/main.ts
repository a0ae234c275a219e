import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeFileAtomic } from '../actors/atomicFile.ts';
import { isLoopbackBind, loadConfig, type SupervisorConfig } from '../actors/config.ts';
import { openJournalBackend } from '../actors/journal/openBackend.ts';
import { Supervisor, type SupervisorOptions } from '../actors/supervisor.ts';
import { buildApp } from './app.ts';

// `gc supervisor run` merges its flags through the same function the supervisor uses, and imports only this module.
export { loadConfig, parseDuration } from '../actors/config.ts';

/** A running supervisor: where its API listens, and how to stop it. */
export interface RunningSupervisor {
  url: string;
  /** Stops gracefully (see `runSupervisor`). Idempotent. */
  close(): Promise<void>;
  /** The actors behind the API (tests and benchmarks use it to wait for quiet). */
  supervisor: Supervisor;
}

/** `$GC_HOME/supervisor.json`: `{pid, url}` of the running supervisor; the CLI finds the API through it. */
export const supervisorInfoFile = (home: string): string => join(home, 'supervisor.json');

/** How long `close` lets open requests (SSE streams included) finish before cutting their connections. */
const DRAIN_MS = 2000;

const urlHost = (bind: string): string => {
  const host = bind === '0.0.0.0' || bind === '' ? '127.0.0.1' : bind === '::' ? '::1' : bind;
  return host.includes(':') ? `[${host}]` : host;
};

/**
 * Runs a supervisor: opens the journal backend and the supervisor log under `config.home`, rebuilds
 * every actor by replay, listens on `config.bind:config.port` (port 0 picks a free one), writes
 * `$GC_HOME/supervisor.json`, and records `supervisor.started`. Bound to a non-loopback address without
 * `allowMutations`, the API is read-only (a notice goes to stderr).
 *
 * `close()` stops listening (open requests get a short grace), stops the reconciler and the cities'
 * services, records `supervisor.stopped`, removes `supervisor.json` and closes the backend. Signal
 * handling belongs to the caller.
 * Throws when the backend, the logs or the port cannot be opened (everything opened is closed again).
 */
export async function runSupervisor(
  config: SupervisorConfig,
  options: SupervisorOptions = {},
): Promise<RunningSupervisor> {
  const backend = openJournalBackend(config);
  let supervisor: Supervisor | undefined;
  try {
    supervisor = await Supervisor.start(config, backend, options);
    const readOnly = !isLoopbackBind(config.bind) && !config.allowMutations;
    if (readOnly) {
      process.stderr.write(
        `gc supervisor: binding to ${config.bind} — mutation endpoints disabled (non-localhost)\n`,
      );
    }
    const app = await buildApp({ config, cities: supervisor.live, readOnly, supervisor });
    await app.listen({ host: config.bind, port: config.port });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const url = `http://${urlHost(config.bind)}:${port}`;
    await writeFileAtomic(supervisorInfoFile(config.home), JSON.stringify({ pid: process.pid, url }) + '\n');

    const sup = supervisor;
    let closing: Promise<void> | undefined;
    const close = (): Promise<void> =>
      (closing ??= (async () => {
        const drained = app.close();
        const timer = setTimeout(() => app.server.closeAllConnections(), DRAIN_MS);
        await drained;
        clearTimeout(timer);
        await sup.close();
        await rm(supervisorInfoFile(config.home), { force: true });
        await backend.close();
      })());
    return { url, close, supervisor: sup };
  } catch (err) {
    await supervisor?.close().catch(() => undefined);
    await backend.close().catch(() => undefined);
    throw err;
  }
}

/** `node dist/http/main.js`: runs the supervisor with `loadConfig()` until SIGTERM or SIGINT. */
async function main(): Promise<void> {
  const state: { running?: RunningSupervisor; signal?: string } = {};
  const shutdown = (): void => {
    process.stderr.write(`gc supervisor: ${state.signal}, stopping\n`);
    state.running!.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`gc supervisor: stop failed: ${(err as Error).stack ?? String(err)}\n`);
        process.exit(1);
      },
    );
  };
  // Installed before starting: a signal during start-up stops the supervisor as soon as it is up.
  const onSignal = (name: string): void => {
    if (state.signal) return;
    state.signal = name;
    if (state.running) shutdown();
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  state.running = await runSupervisor(loadConfig());
  process.stderr.write(`gc supervisor: listening on ${state.running.url}\n`);
  if (state.signal) shutdown();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    process.stderr.write(`gc supervisor: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
