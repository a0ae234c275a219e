import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { parseDuration } from '../runtime/duration.ts';

/** The supervisor's effective configuration: supervisor.toml, overridden by the environment, then flags. */
export interface SupervisorConfig {
  /** `$GC_HOME`: registry, supervisor log, supervisor.toml, runtime files. */
  home: string;
  bind: string;
  port: number;
  /** Set: the JetStream journal at this URL. Unset: the file journal. */
  natsUrl: string | undefined;
  /**
   * Namespace of the JetStream streams (`<PREFIX>_…`) and subjects (`<prefix>.ev.…`): supervisors on
   * different hosts sharing one JetStream need different prefixes when their city paths can coincide.
   */
  natsPrefix: string;
  heartbeatMs: number;
  tickMs: number;
  /** Allow mutations even when bound to a non-loopback address. */
  allowMutations: boolean;
  /**
   * `GC_API_TOKEN` / `[supervisor] api_token`: when set, every request but `/health` needs it as a bearer
   * token (`Authorization: Bearer …`, or `access_token` / the `gc_token` cookie for EventSource clients).
   */
  apiToken: string | undefined;
  /**
   * `GC_CLUSTER` / `[supervisor] cluster`: the name of a group of supervisors sharing one JetStream (needs
   * `natsUrl`). Unset: a lone supervisor, no lease, no forwarding.
   */
  cluster: string | undefined;
  /** `GC_ADVERTISE_URL`: the API URL other supervisors of the cluster forward mutations to (default: ours). */
  advertiseUrl: string | undefined;
  /** `GC_LEASE_TTL`: how long a city's lease outlives its owner's last renewal (renewed every third). */
  leaseTtlMs: number;
  /** `GC_FORWARD` (default on): forward a request for a city another supervisor owns; off: 421 naming it. */
  forward: boolean;
  /** `GC_NATS_REPLICAS` (default 1): replicas of every stream and bucket (3 on a three-node cluster). */
  natsReplicas: number;
}

export type ConfigOverrides = Partial<SupervisorConfig>;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** True when the bind address keeps the API on this machine. Pure. */
export const isLoopbackBind = (bind: string): boolean => LOOPBACK.has(bind);

interface TomlSupervisor {
  bind?: unknown;
  port?: unknown;
  nats_url?: unknown;
  nats_prefix?: unknown;
  heartbeat?: unknown;
  tick?: unknown;
  patrol_interval?: unknown;
  allow_mutations?: unknown;
  api_token?: unknown;
  cluster?: unknown;
  advertise_url?: unknown;
  lease_ttl?: unknown;
  forward?: unknown;
  nats_replicas?: unknown;
}

function readToml(home: string): TomlSupervisor {
  let text: string;
  try {
    text = readFileSync(join(home, 'supervisor.toml'), 'utf8');
  } catch {
    return {};
  }
  const doc = parseToml(text) as { supervisor?: TomlSupervisor };
  return doc.supervisor ?? {};
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * Loads the configuration. Reads `$GC_HOME/supervisor.toml` (keys `[supervisor] bind, port, nats_url,
 * nats_prefix, heartbeat, tick` (or upstream's `patrol_interval`), `allow_mutations`, `api_token`,
 * `cluster`, `advertise_url`, `lease_ttl`, `forward`, `nats_replicas`); throws on an invalid value.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  flags: ConfigOverrides = {},
): SupervisorConfig {
  const home = resolve(flags.home ?? str(env.GC_HOME) ?? join(homedir(), '.gc'));
  const file = readToml(home);
  const port = flags.port ?? Number(str(env.GC_PORT) ?? file.port ?? 8372);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port ${String(port)}`);
  const natsPrefix = flags.natsPrefix ?? str(env.GC_NATS_PREFIX) ?? str(file.nats_prefix) ?? 'gc';
  // Checked here, not at the first open: a bad prefix must stop start-up with the reason, not a 503 later.
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(natsPrefix)) {
    throw new Error(
      `invalid nats prefix ${JSON.stringify(natsPrefix)} (1 to 32 letters, digits, "_" or "-")`,
    );
  }
  const duration = (v: unknown, fallback: string): number =>
    parseDuration(typeof v === 'number' ? `${v}ms` : (str(v) ?? fallback));
  const cluster = flags.cluster ?? str(env.GC_CLUSTER) ?? str(file.cluster);
  if (cluster !== undefined && !/^[A-Za-z0-9_-]{1,32}$/.test(cluster)) {
    throw new Error(`invalid cluster name ${JSON.stringify(cluster)} (1 to 32 letters, digits, "_" or "-")`);
  }
  const natsReplicas = flags.natsReplicas ?? Number(str(env.GC_NATS_REPLICAS) ?? file.nats_replicas ?? 1);
  if (![1, 3, 5].includes(natsReplicas)) throw new Error(`invalid nats replicas ${natsReplicas} (1, 3 or 5)`);
  const leaseTtlMs = flags.leaseTtlMs ?? duration(env.GC_LEASE_TTL ?? file.lease_ttl, '10s');
  if (leaseTtlMs < 300) throw new Error(`invalid lease ttl ${leaseTtlMs} ms (at least 300ms)`);
  const forwardEnv = str(env.GC_FORWARD);
  return {
    home,
    bind: flags.bind ?? str(env.GC_BIND) ?? str(file.bind) ?? '127.0.0.1',
    port,
    natsUrl: flags.natsUrl ?? str(env.GC_NATS_URL) ?? str(file.nats_url),
    natsPrefix,
    heartbeatMs: flags.heartbeatMs ?? duration(env.GC_HEARTBEAT ?? file.heartbeat, '15s'),
    tickMs: flags.tickMs ?? duration(env.GC_TICK ?? file.tick ?? file.patrol_interval, '2s'),
    allowMutations: flags.allowMutations ?? (env.GC_ALLOW_MUTATIONS === '1' || file.allow_mutations === true),
    apiToken: flags.apiToken ?? str(env.GC_API_TOKEN) ?? str(file.api_token),
    cluster,
    advertiseUrl: flags.advertiseUrl ?? str(env.GC_ADVERTISE_URL) ?? str(file.advertise_url),
    leaseTtlMs,
    forward: flags.forward ?? (forwardEnv !== undefined ? forwardEnv !== '0' : file.forward !== false),
    natsReplicas,
  };
}
