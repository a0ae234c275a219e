import { NotFoundError } from '../runtime/errors.ts';
import {
  isConfigError,
  serviceSpecsOf,
  type ServiceConfigError,
  type ServiceSpec,
} from '../../machines/workspaceServices/serviceSpec.ts';
import {
  DEFAULT_RESTART_POLICY,
  type RestartPolicy,
} from '../../machines/workspaceServices/restartPolicy.ts';
import type { EventDraft } from '../../schemas/event.ts';
import type { ServiceStatus } from '../../schemas/workspaceServices.ts';
import { ServiceProcess } from './serviceProcess.ts';
import { allocateSocketPath } from './socketPath.ts';

/** One `[[service]]` of the city: a supervised process, or a table that cannot run (and why). */
type Entry =
  | { spec: ServiceSpec; process: ServiceProcess }
  | { spec: ServiceSpec | ServiceConfigError; process?: undefined; error: string; since: Date };

/** What the manager needs of its city. */
export interface WorkspaceServicesContext {
  cityName: string;
  cityPath: string;
  /** The raw `[[service]]` tables of city.toml. */
  services: readonly unknown[];
  /** Records a notice on the city log; never throws (a failed notice is the caller's to log). */
  record(draft: EventDraft): void;
  policy?: Partial<RestartPolicy>;
  clock?: () => Date;
}

/** Where the proxy sends a request for a service (its publish mode decides who may), or why it cannot. */
export type ServiceRoute =
  { ok: true; socketPath: string; publishMode: string } | { ok: false; publishMode: string; reason: string };

/**
 * A city's workspace services (`[[service]]` of its city.toml): each `proxy_process` runs as a supervised
 * child process reached through the `/svc/<name>` proxy; a `workflow` service (upstream's built-in
 * contracts) or an invalid table is listed with `local_state: config_error` and why. Effects: spawns and
 * stops processes.
 */
export class WorkspaceServices {
  readonly #entries = new Map<string, Entry>();
  readonly #clock: () => Date;

  private constructor(private readonly ctx: WorkspaceServicesContext) {
    this.#clock = ctx.clock ?? (() => new Date());
  }

  /**
   * Starts every runnable service without waiting for it to become ready (a slow or broken service never
   * holds up its city; its state says where it is). Effects: creates socket directories, spawns processes.
   */
  static async start(ctx: WorkspaceServicesContext): Promise<WorkspaceServices> {
    const manager = new WorkspaceServices(ctx);
    const policy = { ...DEFAULT_RESTART_POLICY, ...ctx.policy };
    for (const spec of serviceSpecsOf(ctx.services)) {
      const key = spec.name;
      if (isConfigError(spec)) {
        if (key !== '' && !manager.#entries.has(key))
          manager.#entries.set(key, { spec, error: spec.error, since: manager.#clock() });
        continue;
      }
      if (spec.kind === 'workflow') {
        const error = `unsupported workflow contract ${JSON.stringify(spec.workflowContract ?? '')}`;
        manager.#entries.set(key, { spec, error, since: manager.#clock() });
        continue;
      }
      const socketPath = await allocateSocketPath(ctx.cityPath, spec.name);
      const process = new ServiceProcess({
        cityName: ctx.cityName,
        cityPath: ctx.cityPath,
        spec,
        socketPath,
        policy,
        record: (draft) => ctx.record(draft),
        clock: manager.#clock,
      });
      manager.#entries.set(key, { spec, process });
    }
    for (const entry of manager.#entries.values()) void entry.process?.start();
    return manager;
  }

  /** Every service's status, in city.toml order. */
  list(): ServiceStatus[] {
    return [...this.#entries.values()].map((entry) => this.#status(entry));
  }

  /** @throws NotFoundError (`service <name> not found`). */
  get(name: string): ServiceStatus {
    return this.#status(this.#entry(name));
  }

  /**
   * Restarts a service's process and answers once the new one is ready or has failed (its status says
   * which). A service that cannot run is only re-checked: nothing to restart.
   * @throws NotFoundError for an unknown service.
   */
  async restart(name: string): Promise<void> {
    const entry = this.#entry(name);
    await entry.process?.restart();
  }

  /** The socket a proxied request goes to, or the status saying why there is none (unknown: undefined). */
  route(name: string): ServiceRoute | undefined {
    const entry = this.#entries.get(name);
    if (!entry) return undefined;
    const publishMode = 'publishMode' in entry.spec ? entry.spec.publishMode : 'private';
    // The hot path of every proxied request: no status object is built for a ready service.
    if (entry.process?.ready) return { ok: true, socketPath: entry.process.socketPath, publishMode };
    return { ok: false, publishMode, reason: this.#status(entry).reason ?? '' };
  }

  /** Stops every process (the city stops). */
  async stop(): Promise<void> {
    await Promise.all([...this.#entries.values()].map((entry) => entry.process?.stop() ?? Promise.resolve()));
  }

  #entry(name: string): Entry {
    const entry = this.#entries.get(name);
    if (!entry) throw new NotFoundError(`service ${name} not found`);
    return entry;
  }

  #status(entry: Entry): ServiceStatus {
    const spec = entry.spec;
    const base: ServiceStatus = {
      service_name: spec.name,
      mount_path: `/svc/${spec.name}`,
      publish_mode: 'publishMode' in spec ? spec.publishMode : 'private',
      state_root: 'stateRoot' in spec ? spec.stateRoot : `.gc/services/${spec.name}`,
      local_state: 'config_error',
      publication_state: 'private',
      updated_at: this.#clock().toISOString(),
    };
    if ('kind' in spec) {
      base.kind = spec.kind;
      if (spec.workflowContract) base.workflow_contract = spec.workflowContract;
      base.visibility = spec.visibility;
      base.hostname = spec.hostname;
      if (spec.allowWebsockets) base.allow_websockets = true;
      // No publication edge here: a service that asks to be public is reachable only through the proxy.
      if (spec.visibility !== 'private') {
        base.publication_state = 'blocked';
        base.reason =
          spec.publishMode === 'direct' ? 'direct_base_url_unavailable' : 'publication_unavailable';
      }
    }
    if (!entry.process) {
      return {
        ...base,
        state: 'degraded',
        local_state: 'config_error',
        reason: entry.error,
        updated_at: entry.since.toISOString(),
      };
    }
    const p = entry.process.status();
    const state = p.localState;
    return {
      ...base,
      state,
      local_state: state,
      ...(p.reason ? { reason: p.reason } : {}),
      updated_at: p.updatedAt.toISOString(),
    };
  }
}
