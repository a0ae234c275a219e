import { readFile } from 'node:fs/promises';
import { parse } from 'smol-toml';
import { cityTomlPath } from '../config/index.ts';
import { captureCursor } from '../runtime/cursor.ts';
import {
  ConflictError,
  InternalError,
  isGcError,
  UnavailableError,
  ValidationError,
} from '../runtime/errors.ts';
import type { CityActor } from './cityActor.ts';
import { checkExistingCityToml, undoCityCreate } from './cityCreate.ts';
import { resolveCityDir, scaffoldCity, type Scaffold } from './cityScaffold.ts';
import { CITY_NAME } from './registry.ts';
import { stepRunner } from './scaffoldSteps.ts';
import type { AsyncAccepted, RegisterCityInput } from './supervisorApi.ts';
import type { SupervisorCore } from './supervisorCore.ts';

const invalid = (message: string, location: string, value: unknown): ValidationError =>
  new ValidationError(message, 'invalid city directory', { errors: [{ location, message, value }] });

/** 409: the directory's log says its city is registered (a registry that lost it; an operation under way). */
const pastRegistration = (path: string): ConflictError =>
  new ConflictError(`city operation already in progress at ${path}`);

/** How long a register waits for an unregistered city of the same directory to leave the supervisor. */
const DEPARTURE_WAIT_MS = 10_000;

/**
 * Resolves once no city actor of `path` is left: one being unregistered, or unregistered and not yet
 * detached (the reconciler detaches it right after its terminal event), is waited for.
 * @throws ConflictError 409 when it does not leave in time, or the actor there is not leaving.
 */
async function departed(core: SupervisorCore, path: string): Promise<void> {
  const old = [...core.cities.values()].find((c) => c.path === path);
  if (!old) return;
  if (old.state !== 'unregistering' && old.state !== 'unregistered') throw pastRegistration(path);
  await new Promise<void>((resolve, reject) => {
    const done = (err?: ConflictError): void => {
      clearTimeout(timer);
      off();
      if (err) reject(err);
      else resolve();
    };
    const timer = setTimeout(() => done(pastRegistration(path)), DEPARTURE_WAIT_MS);
    const off = core.live.onChange((change) => {
      if (change.kind === 'detached' && core.cities.get(old.name) !== old) done();
    });
    if (core.cities.get(old.name) !== old) done();
    else core.wake();
  });
}

/**
 * The name a registration uses: the asked one, else city.toml's `workspace.name`, else the directory's
 * base name (as upstream's `gc register`). Effects: reads city.toml.
 * @throws ValidationError (422) when there is no city.toml or the name is not a valid city name.
 */
async function registrationName(path: string, base: string, asked: string | undefined): Promise<string> {
  let text: string;
  try {
    text = await readFile(cityTomlPath(path), 'utf8');
  } catch {
    throw invalid(`${path} is not a city directory (no city.toml found)`, 'body.dir', path);
  }
  let declared: string | undefined;
  try {
    const ws = (parse(text) as { workspace?: { name?: unknown } }).workspace;
    if (typeof ws?.name === 'string' && ws.name.trim() !== '') declared = ws.name.trim();
  } catch {
    // Not valid TOML: the start reports it; the name falls back to the directory's.
  }
  const name = asked?.trim() || declared || base;
  if (!CITY_NAME.test(name)) {
    throw invalid(
      `invalid city name ${JSON.stringify(name)}: use letters, digits, '.', '_' or '-'`,
      asked?.trim() ? 'body.name' : 'body.dir',
      name,
    );
  }
  return name;
}

/**
 * `POST /v0/cities/register` (ours; upstream's `gc register` writes the registry file and signals its
 * supervisor): registers an existing city directory (one with a city.toml, as `gc init` writes it),
 * completing its `.gc/` runtime tree and log file when missing, records `request.accepted` and
 * `city.created`, and answers 202 like a create; the reconciler starts the city and records
 * `request.result.city.create` (or `request.failed`). A directory unregistered before is registered again:
 * its log goes on (an unregister still under way is waited for). A failure before acceptance undoes what it did.
 * @throws ValidationError 422 (no city.toml, bad name, bad dir), ConflictError 409 (already registered, a
 *   name taken, an operation in progress), UnavailableError 503.
 */
export async function registerCity(core: SupervisorCore, input: RegisterCityInput): Promise<AsyncAccepted> {
  if (!core.log.running) throw new UnavailableError('supervisor is stopping', 'unavailable');
  const home = core.readiness.host.home;
  const resolving = stepRunner(input.dir, core.scaffold);
  const dir = await resolving('resolve dir', () => resolveCityDir(input.dir, home));
  const path = dir.path;
  const step = stepRunner(path, core.scaffold);
  const name = await step('check city.toml', () => registrationName(path, dir.name, input.name));
  const known = core.registry.byPath(path);
  if (known) throw new ConflictError(`city already registered with supervisor: ${known.name} (${path})`);
  await departed(core, path);

  core.claims.claim({ op: 'create.claim', name, path });
  let scaffold: Scaffold | undefined;
  let city: CityActor | undefined;
  let registered = false;
  let request_id: string | undefined;
  try {
    core.claims.check({ op: 'create.admit', name, path, initialized: false });
    await step('check city.toml', () => checkExistingCityToml(path));
    const event_cursor = await captureCursor(core.live.logs());
    scaffold = await scaffoldCity(path, name, {}, step);
    await scaffold.createLog();
    city = await core.openCity({ name, path });
    if (city.state !== 'absent' && city.state !== 'unregistered') throw pastRegistration(path);
    await step('write registry', () => core.registry.add({ name, path }));
    registered = true;
    const id = core.newRequestId();
    await core.log.accept({ request_id: id, operation: 'city.create', name, path });
    request_id = id;
    await city.send({ type: 'REGISTER' });
    core.attach(city);
    return { request_id, event_cursor };
  } catch (err) {
    const message = `registering city at ${path}: ${(err as Error).message}`;
    await undoCityCreate(core, step, message, { request_id, registered, name, city, scaffold });
    if (isGcError(err)) throw err;
    throw new InternalError(message, { cause: err });
  } finally {
    core.claims.release(path);
    core.wake();
  }
}
