import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LogController } from 'fastify';
import type { Logger as PinoLogger } from 'pino';
import { writeFileAtomic } from '../actors/runtime/atomicFile.ts';
import { isLoopbackBind, loadConfig, type SupervisorConfig } from '../actors/supervisor/supervisorConfig.ts';
import { openJournalBackend } from '../actors/runtime/journal/openBackend.ts';
import { ActorView, connectStatelyInspector } from '../actors/inspect/index.ts';
import { createLogger } from '../actors/runtime/logger.ts';
import { Supervisor, type SupervisorOptions } from '../actors/supervisor/supervisor.ts';
import { buildApp } from './app.ts';
import { FAMILIES } from './families.ts';
import { servicesOf, type ServedFamily } from './family.ts';

// `gc supervisor run` merges its flags through the same function the supervisor uses, and imports only this module.
export { loadConfig } from '../actors/supervisor/supervisorConfig.ts';
export { parseDuration } from '../actors/runtime/duration.ts';

/** A running supervisor: where its API listens, and how to stop it. */
export interface RunningSupervisor {
  url: string;
  /** Stops gracefully (see `runSupervisor`). Idempotent. */
  close(): Promise<void>;
  /** The actors behind the API (tests and benchmarks use it to wait for quiet). */
  supervisor: Supervisor;
  /** The one logger of the supervisor: Fastify's and its actors'. */
  logger: PinoLogger;
}

/** What `runSupervisor` may be given: the supervisor's options, with the logger a whole pino logger. */
export interface RunSupervisorOptions extends Omit<SupervisorOptions, 'logger'> {
  /** The logger Fastify and every actor log through (default: pino JSON lines on stderr). */
  logger?: PinoLogger;
  /**
   * `--inspect` / `GC_INSPECT`: the WebSocket URL of an XState inspector (e.g. `ws://localhost:8080`, the
   * bridge of `@statelyai/inspect/server`); every actor's creation and transitions are sent there.
   */
  inspect?: string | undefined;
  /**
   * The families it serves: their city services (unless `services` is given) and their routes (default
   * `FAMILIES`, every family of the build).
   */
  families?: readonly ServedFamily[];
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
 * `allowMutations`, the API is read-only (a warning is logged). One pino logger serves Fastify and the
 * actors, so everything the supervisor says is one structured format.
 *
 * `close()` stops listening (open requests get a short grace), stops the reconciler and the cities'
 * services, records `supervisor.stopped`, removes `supervisor.json` and closes the backend. Signal
 * handling belongs to the caller.
 * Throws when the backend, the logs or the port cannot be opened (everything opened is closed again).
 */
export async function runSupervisor(
  config: SupervisorConfig,
  options: RunSupervisorOptions = {},
): Promise<RunningSupervisor> {
  const logger = options.logger ?? createLogger();
  const backend = openJournalBackend(config, logger);
  let supervisor: Supervisor | undefined;
  try {
    const { families = FAMILIES, ...supervisorOptions } = options;
    supervisor = await Supervisor.start(config, backend, {
      ...supervisorOptions,
      services: supervisorOptions.services ?? servicesOf(families),
      logger,
    });
    if (options.inspect) {
      supervisor.inspection.attachInspector(await connectStatelyInspector(options.inspect, { logger }));
      logger.info({ url: options.inspect }, 'sending actor inspection events to the XState inspector');
    }
    // A configured API token authenticates every request, so it opens mutations beyond loopback too.
    const readOnly = !isLoopbackBind(config.bind) && !config.allowMutations && config.apiToken === undefined;
    if (readOnly) {
      logger.warn({ bind: config.bind }, 'mutation endpoints disabled (non-localhost bind)');
    }
    // Per-request lines would drown the supervisor's own (SSE streams and blocking queries are long).
    const app = await buildApp(
      {
        config,
        cities: supervisor.live,
        readOnly,
        supervisor,
        actors: new ActorView(supervisor.inspection),
        ...(supervisor.cluster ? { cluster: supervisor.cluster.routing(config.forward) } : {}),
      },
      { loggerInstance: logger, logController: new LogController({ disableRequestLogging: true }) },
      families,
    );
    await app.listen({ host: config.bind, port: config.port });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const url = `http://${urlHost(config.bind)}:${port}`;
    // The lease values other supervisors forward to carry it from the next renewal on.
    supervisor.cluster?.node.advertise(url);
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
        sup.inspection.detachInspector();
        await rm(supervisorInfoFile(config.home), { force: true });
        await backend.close();
      })());
    return { url, close, supervisor: sup, logger };
  } catch (err) {
    await supervisor?.close().catch(() => undefined);
    await backend.close().catch(() => undefined);
    throw err;
  }
}

/** `node dist/http/main.js`: runs the supervisor with `loadConfig()` until SIGTERM or SIGINT. */
async function main(): Promise<void> {
  const logger = createLogger();
  const state: { running?: RunningSupervisor; signal?: string } = {};
  const shutdown = (): void => {
    logger.info({ signal: state.signal }, 'stopping');
    state.running!.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'stop failed');
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
  state.running = await runSupervisor(loadConfig(), { logger, inspect: process.env.GC_INSPECT });
  if (state.signal) shutdown();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    createLogger().fatal({ err }, 'supervisor failed');
    process.exit(1);
  });
}
