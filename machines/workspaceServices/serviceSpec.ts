/**
 * A `[[service]]` table of city.toml, checked. Pure: no I/O.
 *
 * Upstream's keys (`name`, `kind`, `publish_mode`, `state_root`, `[service.publication]`,
 * `[service.workflow]`, `[service.process]`); there is no port key: a `proxy_process` child listens on a unix
 * socket the supervisor allocates and hands it as `GC_SERVICE_SOCKET`.
 */
export interface ServiceSpec {
  name: string;
  kind: 'proxy_process' | 'workflow';
  publishMode: 'private' | 'direct';
  visibility: string;
  hostname: string;
  allowWebsockets: boolean;
  /** Relative to the city directory, under `.gc/services/`. */
  stateRoot: string;
  workflowContract?: string;
  /** argv of a `proxy_process` service. */
  command: string[];
  healthPath?: string;
}

/** A table that could not be made a spec: its name (if it has one) and why. */
export interface ServiceConfigError {
  name: string;
  error: string;
}

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9_-]*$/;
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

const table = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

/** Upstream's label normalisation for a hostname default: lower case, runs of other characters → `-`. */
function label(value: string): string {
  const out = value
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return out === '' ? 'svc' : out;
}

/** True when `root` (relative, normalised) lies under `.gc/services/`. */
function underServices(root: string): boolean {
  const parts = root.split('/').filter((p) => p !== '' && p !== '.');
  return parts[0] === '.gc' && parts[1] === 'services' && parts.length > 2 && !parts.includes('..');
}

/** Checks one `[[service]]` table. Pure. */
export function serviceSpecOf(raw: unknown): ServiceSpec | ServiceConfigError {
  const t = table(raw);
  const name = text(t.name);
  const fail = (error: string): ServiceConfigError => ({ name, error });
  if (!NAME.test(name))
    return fail(`service name ${JSON.stringify(name)} must match [a-zA-Z0-9][a-zA-Z0-9_-]*`);
  const kind = text(t.kind) || 'workflow';
  if (kind !== 'workflow' && kind !== 'proxy_process')
    return fail(`service ${name}: kind must be workflow or proxy_process, not ${JSON.stringify(kind)}`);
  const publishMode = text(t.publish_mode) || 'private';
  if (publishMode !== 'private' && publishMode !== 'direct')
    return fail(
      `service ${name}: publish_mode must be private or direct, not ${JSON.stringify(publishMode)}`,
    );
  const publication = table(t.publication);
  const visibility =
    text(publication.visibility).toLowerCase() || (publishMode === 'direct' ? 'public' : 'private');
  if (!['private', 'public', 'tenant'].includes(visibility))
    return fail(`service ${name}: publication.visibility must be private, public or tenant`);
  if (publishMode === 'direct' && visibility !== 'public')
    return fail(`service ${name}: publish_mode direct requires publication.visibility public`);
  const hostname = text(publication.hostname) || label(name);
  if (!LABEL.test(hostname)) return fail(`service ${name}: publication.hostname must be one DNS label`);
  const stateRoot = text(t.state_root) || `.gc/services/${name}`;
  if (stateRoot.startsWith('/') || !underServices(stateRoot))
    return fail(`service ${name}: state_root must stay under .gc/services/`);
  const workflow = table(t.workflow);
  const process = table(t.process);
  const command = Array.isArray(process.command) ? process.command : [];
  if (!command.every((a): a is string => typeof a === 'string'))
    return fail(`service ${name}: process.command must be an array of strings`);
  if (kind === 'proxy_process' && (command.length === 0 || command[0] === ''))
    return fail(`service ${name}: process.command is required for a proxy_process service`);
  if (kind === 'workflow' && text(workflow.contract) === '')
    return fail(`service ${name}: workflow.contract is required for a workflow service`);
  const healthPath = text(process.health_path);
  if (healthPath !== '' && !healthPath.startsWith('/'))
    return fail(`service ${name}: process.health_path must start with /`);
  return {
    name,
    kind,
    publishMode,
    visibility,
    hostname,
    allowWebsockets: publication.allow_websockets === true,
    stateRoot,
    ...(text(workflow.contract) ? { workflowContract: text(workflow.contract) } : {}),
    command,
    ...(healthPath ? { healthPath } : {}),
  };
}

/** True when {@link serviceSpecOf} refused the table. Pure. */
export const isConfigError = (s: ServiceSpec | ServiceConfigError): s is ServiceConfigError => 'error' in s;

/**
 * Checks every table; a name used twice keeps its first table and makes the second a config error. Pure.
 */
export function serviceSpecsOf(raws: readonly unknown[]): (ServiceSpec | ServiceConfigError)[] {
  const seen = new Set<string>();
  return raws.map((raw) => {
    const spec = serviceSpecOf(raw);
    if (spec.name !== '' && seen.has(spec.name))
      return { name: spec.name, error: `service ${spec.name} is defined twice` };
    seen.add(spec.name);
    return spec;
  });
}
