import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CausalHeads } from '../../schemas/eventCauses.ts';
import type { CityActor } from './cityActor.ts';
import { readCityToml, effectiveConfig, materializePacks, isBuiltinProvider } from '../config/index.ts';
import { CITY_PHASES, type CityPhase } from '../runtime/cityServices.ts';
import type { SupervisorCore } from './supervisorCore.ts';

/** Error codes of `request.failed` (upstream's). */
export const CITY_INIT_FAILED = 'city_init_failed';
export const CITY_UNREGISTER_FAILED = 'city_unregister_failed';

/**
 * One reconcile pass. First it records the terminal event of every pending request whose outcome is now
 * known (a create once its city runs or failed; an unregister once the controller stopped, or at once
 * when its city never recorded it); then it starts
 * the slow work cities are waiting for (start, stop, unregister), each city at most one job at a time; last
 * it detaches unregistered cities whose request is terminated, so a terminal event is always written
 * before the city's log leaves LiveCities, and closes their logs.
 * Effects: appends to the supervisor's log; starts jobs that append to city logs, start and stop services.
 */
export async function reconcilePass(core: SupervisorCore): Promise<void> {
  for (const req of core.log.pending()) {
    // Its HTTP handler is still between `request.accepted` and the city's own event: not ours yet.
    if (!core.claims.mayReconcile(req.path)) continue;
    const city = core.cities.get(req.name);
    const same = city !== undefined && city.path === req.path;
    if (req.operation === 'city.create') {
      if (!same || city.state === 'unregistering' || city.state === 'unregistered') {
        await core.log.fail(req.request_id, CITY_INIT_FAILED, `city ${req.name} is no longer registered`);
      } else if (city.running) {
        await core.log.succeed(req.request_id, await headOf(city));
      } else if (city.state === 'failed') {
        await core.log.fail(
          req.request_id,
          CITY_INIT_FAILED,
          city.snapshot.context.error ?? 'city start failed',
          await headOf(city),
        );
      }
    } else if (!same) {
      // Nothing of the city is left in this process (e.g. a restart after the registry entry was removed).
      await core.log.succeed(req.request_id);
    } else if (city.state === 'unregistered') {
      const error = city.snapshot.context.error;
      const causes = await headOf(city);
      if (error) await core.log.fail(req.request_id, CITY_UNREGISTER_FAILED, error, causes);
      else await core.log.succeed(req.request_id, causes);
    } else if (city.state !== 'unregistering') {
      // Accepted, but the city's log never took `city.unregister_requested` (refused, or the process died
      // in between): the city was never touched, so the request failed.
      await core.log.fail(
        req.request_id,
        CITY_UNREGISTER_FAILED,
        `city ${req.name}: city.unregister_requested was never recorded in the city's log`,
      );
    }
  }

  const pendingNames = new Set(core.log.pending().map((r) => r.name));
  for (const city of [...core.cities.values()]) {
    if (core.jobs.has(city.name)) continue;
    switch (city.state) {
      case 'registered':
        job(core, city, startCity);
        break;
      case 'stopping':
        job(core, city, stopCity);
        break;
      case 'unregistering':
        job(core, city, stopForUnregister);
        break;
      case 'unregistered':
        if (!pendingNames.has(city.name)) await core.detach(city);
        break;
      default:
        break;
    }
  }
}

/**
 * The city's log head, recorded with a request's terminal event as its cause: a merged stream delivers the
 * city's own events up to it (`city.created` … `controller.started`/`stopped`) before the terminal. Best
 * effort: without it the terminal is only not held.
 */
async function headOf(city: CityActor): Promise<CausalHeads | undefined> {
  const head = await city.journal.head().catch(() => 0);
  return head > 0 ? { [city.name]: head } : undefined;
}

function job(
  core: SupervisorCore,
  city: CityActor,
  work: (core: SupervisorCore, city: CityActor) => Promise<void>,
): void {
  const run = work(core, city)
    .catch((err: unknown) => {
      core.logger.error({ err, city: city.name }, 'city job failed');
    })
    .finally(() => {
      core.jobs.delete(city.name);
      core.wake();
    });
  core.jobs.set(city.name, run);
}

/** The supervisor's own part of each phase; services plugged in for the phase run after it. */
async function builtinPhase(phase: CityPhase, city: CityActor): Promise<void> {
  switch (phase) {
    case 'materializing_packs': {
      const gc = join(city.path, '.gc');
      await Promise.all(['cache', 'runtime', 'system'].map((d) => mkdir(join(gc, d), { recursive: true })));
      // Packs are fetched once, here; then the config is the effective one (packs and patches applied).
      const raw = await readCityToml(city.path);
      await materializePacks(city.path, raw);
      city.config = (await effectiveConfig({ path: city.path, name: city.name })).city;
      break;
    }
    case 'validating_agents': {
      for (const [i, agent] of (city.config?.agents ?? []).entries()) {
        if (agent.name.trim() === '') throw new Error(`agent #${i + 1} in city.toml has no name`);
        if (
          agent.provider !== undefined &&
          !isBuiltinProvider(agent.provider) &&
          !Object.hasOwn(city.config?.providers ?? {}, agent.provider)
        ) {
          throw new Error(`agent ${agent.name}: unknown provider ${JSON.stringify(agent.provider)}`);
        }
      }
      break;
    }
    case 'starting_bead_store':
    case 'resolving_formulas':
      // Nothing of the supervisor's own yet: the bead store and formulas are plugged-in services.
      break;
  }
}

/** registered → starting → running (or failed): the phases, then `controller.started`. */
async function startCity(core: SupervisorCore, city: CityActor): Promise<void> {
  if (!(await city.send({ type: 'START' }))) return;
  try {
    for (const phase of CITY_PHASES) {
      await builtinPhase(phase, city);
      for (const factory of core.services.filter((f) => f.phase === phase)) {
        const service = await factory.start({
          name: city.name,
          path: city.path,
          journal: city.journal,
          log: city.log,
          config: city.config ?? { agents: [] },
          logger: core.logger,
          home: core.config.home,
          started: city.serviceValues(),
          observer: core.inspection,
        });
        city.services.set(factory.name, service);
      }
      await city.send({ type: 'PHASE_COMPLETED', phase });
      // Unregistered (or recovered) meanwhile: the unregister job owns the services now.
      if (city.state !== 'starting') return;
    }
    core.live.update(city.name, { services: city.serviceValues() });
    await city.send({ type: 'STARTED', at: core.now().toISOString() });
  } catch (err) {
    await city.stopServices();
    core.live.update(city.name, { services: {} });
    await city.send({ type: 'START_FAILED', error: (err as Error).message });
  }
}

/** stopping → stopped: services down, then `controller.stopped`. */
async function stopCity(core: SupervisorCore, city: CityActor): Promise<void> {
  await city.stopServices(true);
  core.live.update(city.name, { services: {} });
  await city.send({ type: 'STOPPED' });
}

/** unregistering → unregistered: registry entry gone (idempotent), services down, `controller.stopped`. */
async function stopForUnregister(core: SupervisorCore, city: CityActor): Promise<void> {
  if (core.registry.get(city.name)?.path === city.path) await core.registry.remove(city.name);
  const error = await city.stopServices(true);
  core.live.update(city.name, { services: {} });
  await city.send(error === undefined ? { type: 'STOPPED' } : { type: 'STOPPED', error });
}
