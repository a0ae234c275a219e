import { readFile } from 'node:fs/promises';
import { parse } from 'smol-toml';
import { tableOf } from '../../machines/config/layers.ts';
import { sessionProviderProblem } from '../../machines/config/sessionProvider.ts';
import { cityTomlPath, isBuiltinProvider, normalizeBootstrapProfile } from '../config/index.ts';
import { captureCursor } from '../runtime/cursor.ts';
import type { CityActor } from './cityActor.ts';
import { isInitialized, resolveCityDir, scaffoldCity, type Scaffold } from './cityScaffold.ts';
import { InternalError, isGcError, UnavailableError, ValidationError } from '../runtime/errors.ts';
import { CITY_INIT_FAILED } from './reconcile.ts';
import { stepRunner, type StepRunner } from './scaffoldSteps.ts';
import type { AsyncAccepted, CreateCityInput } from './supervisorApi.ts';
import type { SupervisorCore } from './supervisorCore.ts';

const invalidProvider = (message: string, location = 'body.provider', value?: unknown): ValidationError =>
  new ValidationError(message, 'invalid provider', {
    errors: [{ location, message, ...(value === undefined ? {} : { value }) }],
  });

/**
 * Checks the body beyond its schema, as upstream's scaffold does. Pure.
 * @throws ValidationError (422) with upstream's detail texts.
 */
export function validateCreate(input: CreateCityInput): {
  provider?: string;
  startCommand?: string;
  profile?: string;
} {
  const provider = input.provider;
  const startCommand =
    input.start_command !== undefined && input.start_command.trim() !== '' ? input.start_command : undefined;
  if (provider !== undefined && startCommand !== undefined) {
    throw invalidProvider('provider and start_command are mutually exclusive');
  }
  if (provider === undefined && startCommand === undefined) {
    throw invalidProvider('provider or start_command required');
  }
  if (provider !== undefined && !isBuiltinProvider(provider)) {
    throw invalidProvider(`unknown provider ${JSON.stringify(provider)}`, 'body.provider', provider);
  }
  let profile: string | undefined;
  if (input.bootstrap_profile !== undefined) {
    profile = normalizeBootstrapProfile(input.bootstrap_profile);
    if (profile === undefined) throw unknownBootstrapProfile(input.bootstrap_profile);
  }
  return {
    ...(provider !== undefined ? { provider } : {}),
    ...(startCommand !== undefined ? { startCommand } : {}),
    ...(profile !== undefined ? { profile } : {}),
  };
}

/** The 422 of an unknown `bootstrap_profile` (also used when the schema's enum refuses it). */
export function unknownBootstrapProfile(value: unknown): ValidationError {
  const message = `unknown bootstrap profile ${JSON.stringify(value)}`;
  return new ValidationError(message, 'invalid bootstrap profile', {
    errors: [{ location: 'body.bootstrap_profile', message, value }],
  });
}

/**
 * A city.toml already in the directory (a city written elsewhere, `gc init --from`) is refused at create
 * when it asks for a session runtime this supervisor does not have: the same answer /config/validate
 * gives. A file that is not valid TOML is left to the start (which reports it). Effects: reads city.toml.
 * @throws ValidationError (422) naming `city.toml:session.provider`.
 */
export async function checkExistingCityToml(path: string): Promise<void> {
  let doc: Record<string, unknown>;
  try {
    doc = parse(await readFile(cityTomlPath(path), 'utf8'));
  } catch {
    return;
  }
  const p = sessionProviderProblem(doc);
  if (p?.severity !== 'error') return;
  throw new ValidationError(`${p.file}: ${p.field}: ${p.message}`, 'invalid_config', {
    errors: [{ location: `${p.file}:${p.field}`, message: p.message, value: tableOf(doc.session).provider }],
  });
}

/** 503 when the host lacks what the city needs. Effects: looks up executables. */
async function checkHost(core: SupervisorCore, provider: string | undefined): Promise<void> {
  for (const bin of core.hardDependencies) {
    if (!(await core.readiness.host.which(bin))) {
      throw new UnavailableError(
        `required dependency ${JSON.stringify(bin)} not found in PATH`,
        'missing_dependency',
      );
    }
  }
  if (provider !== undefined) {
    const blocker = await core.readiness.providerBlocker(provider);
    if (blocker) {
      throw new UnavailableError(
        `provider ${JSON.stringify(provider)} is not ready: ${blocker}`,
        'provider_not_ready',
      );
    }
  }
}

/**
 * `POST /v0/city`: validates, scaffolds the directory, registers the city, creates and opens its log,
 * records `request.accepted` in the supervisor's log and then `city.created` in the city's (an operation's
 * events are recorded, and stamped, in its order), attaches the city to LiveCities (running=false) and
 * answers; the reconciler (poked at once) starts the city and records the terminal event.
 * The cursor is captured before any of that work. Every file system step runs under the scaffold deadline
 * (`core.scaffold`). A failure before acceptance undoes everything done; one after it (the city's log
 * refuses `city.created`) also fails the accepted request, so it still gets exactly one terminal event.
 * @throws ValidationError 422, ConflictError 409, UnavailableError 503 (a dependency, the journal, a full
 *   disk, a step past its deadline), or the file system's error (500) after rolling back.
 */
export async function createCity(core: SupervisorCore, input: CreateCityInput): Promise<AsyncAccepted> {
  if (!core.log.running) throw new UnavailableError('supervisor is stopping', 'unavailable');
  const { provider, startCommand, profile } = validateCreate(input);
  const home = core.readiness.host.home;
  const resolving = stepRunner(input.dir, core.scaffold);
  const { path, name } = await resolving('resolve dir', () => resolveCityDir(input.dir, home));
  const step = stepRunner(path, core.scaffold);

  // Claimed synchronously with the check, so two concurrent creates of one path cannot both proceed.
  core.claims.claim({ op: 'create.claim', name, path });
  let scaffold: Scaffold | undefined;
  let registering = false;
  let city: CityActor | undefined;
  let request_id: string | undefined;
  try {
    const initialized = await step('check dir', () => isInitialized(path));
    core.claims.check({ op: 'create.admit', name, path, initialized });
    await checkHost(core, provider);
    await step('check city.toml', () => checkExistingCityToml(path));

    const event_cursor = await captureCursor(core.live.logs());
    scaffold = await scaffoldCity(path, name, { provider, startCommand, bootstrapProfile: profile }, step);
    registering = true;
    await step('write registry', () => core.registry.add({ name, path }));
    await scaffold.createLog();
    city = await core.openCity({ name, path });
    const id = core.newRequestId();
    await core.log.accept({ request_id: id, operation: 'city.create', name, path });
    request_id = id;
    await city.send({ type: 'REGISTER' });

    core.attach(city);
    return { request_id, event_cursor };
  } catch (err) {
    const message = `creating city at ${path}: ${(err as Error).message}`;
    await undoCityCreate(core, step, message, { request_id, registered: registering, name, city, scaffold });
    if (isGcError(err)) throw err;
    // A full or read-only disk is an outage to retry after, not a bug: 503 like the journal's own appends.
    throw DISK_UNAVAILABLE.has((err as NodeJS.ErrnoException).code ?? '')
      ? new UnavailableError(message, 'unavailable', { cause: err })
      : new InternalError(message, { cause: err });
  } finally {
    // Woken only once the claim is gone: the reconciler leaves claimed paths to their handler.
    core.claims.release(path);
    core.wake();
  }
}

/**
 * Undoes a create or register that failed part-way, each step best effort: fails its accepted request,
 * removes its registry entry, closes its log, rolls its scaffold back.
 */
export async function undoCityCreate(
  core: SupervisorCore,
  step: StepRunner,
  message: string,
  done: { request_id?: string; registered: boolean; name: string; city?: CityActor; scaffold?: Scaffold },
): Promise<void> {
  // When the supervisor's log refuses this too, the reconciler fails the request later (no such city).
  if (done.request_id !== undefined)
    await core.log.fail(done.request_id, CITY_INIT_FAILED, message).catch(() => undefined);
  // Queued even after a registry write that overran: the registry applies its changes in order.
  if (done.registered) await step('undo', () => core.registry.remove(done.name)).catch(() => undefined);
  // The log is closed before its file goes, so a retried create opens a new one, never this one.
  await done.city?.journal.close().catch(() => undefined);
  await done.scaffold?.rollback().catch(() => undefined);
}

/** File-system error codes that mean the disk cannot take writes right now (full, over quota, read-only). */
const DISK_UNAVAILABLE = new Set(['ENOSPC', 'EDQUOT', 'EROFS']);
