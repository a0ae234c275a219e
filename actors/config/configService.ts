/**
 * One city's configuration service (the ConfigApi): answers the config, packs, providers, rigs and patches
 * routes from the effective config, and makes every edit through the city's one config writer. It follows
 * city.toml: an edit made by hand (seen by a file watch, a slow poll, or the next read) is recorded as
 * `config.changed` and, when valid, handed to the sessions and agents.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { agentIdentity, strOf, textOf } from '../../machines/config/layers.ts';
import { isCityLevelProvider, resolveProvider } from '../../machines/config/resolveProvider.ts';
import type { ConfigResponse, PackResponse } from '../../schemas/config.ts';
import type { PatchAnswer, PatchRecord } from '../../schemas/patches.ts';
import type {
  ProviderCreateInputBody,
  ProviderPublicResponse,
  ProviderResponse,
  ProviderUpdateInputBody,
} from '../../schemas/providers.ts';
import type {
  RigAction,
  RigActionBody,
  RigCreateInputBody,
  RigResponse,
  RigUpdateInputBody,
} from '../../schemas/rigs.ts';
import { cityTomlPath, type CityConfig } from './cityConfig.ts';
import { PackWatch } from './packWatch.ts';
import { NotFoundError } from '../runtime/errors.ts';
import type { Logger } from '../runtime/logger.ts';
import type { LogRuntime } from '../runtime/logRuntime/logRuntime.ts';
import { BUILTIN_PROVIDERS, isBuiltinProvider } from './providers.ts';
import type { ConfigApi } from './configApi.ts';
import {
  configView,
  defaultsView,
  explainView,
  providerSpecJson,
  rigView,
  validateView,
} from './configViews.ts';
import {
  configWriterFor,
  lastRecordedHash,
  settlePendingWrite,
  type ConfigEdit,
  type ConfigWriter,
} from './configWriter.ts';
import { effectiveConfigOf, tomlProblem, type EffectiveConfig } from './effectiveConfig.ts';
import { deletePatch, patchKey, patchRecord, patchTables, putPatch, type PatchKind } from './patchEdits.ts';
import { createProvider, deleteProvider, updateProvider } from './providerEdits.ts';
import { createRig, deleteRig, updateRig } from './rigEdits.ts';
import { gitStatus } from './rigGit.ts';
import type { ConfigProblem } from '../../machines/config/problems.ts';
import { restartProblems, type ReadConfig } from '../../machines/config/restartKeys.ts';

/** What the service needs of the city's sessions (absent in a city that runs none). */
export interface ConfigSessions {
  setConfig(config: CityConfig): void;
  readonly book: {
    openSessions(): ReadonlyArray<{
      id: string;
      template: string;
      state: string;
      alias?: string;
      sessionName: string;
    }>;
  };
  kill(id: string, ctx: { actor: string }): Promise<string>;
}

export interface ConfigServiceOptions {
  city: string;
  path: string;
  log: LogRuntime;
  logger: Logger;
  sessions?: ConfigSessions;
  /** Asked to reconcile after a change (the agent service's poke). */
  poke?: () => void;
  /** How often the file is looked at besides the watch (0: never). */
  pollMs?: number;
  /** Other families' checks of the same files (the orders'), added to what validate reports. */
  moreProblems?: (cityPath: string) => Promise<readonly ConfigProblem[]>;
}

export class ConfigService implements ConfigApi {
  readonly #writer: ConfigWriter;
  #current!: EffectiveConfig;
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #unlisten: (() => void) | undefined;
  #packs: PackWatch | undefined;
  /** What the city's start-only readers took when it started (restartProblems compares with it). */
  #started: ReadConfig | undefined;

  constructor(private readonly opts: ConfigServiceOptions) {
    this.#writer = configWriterFor(opts.path, opts.city);
  }

  get index(): number {
    return this.opts.log.head;
  }

  /**
   * Settles a write a crash interrupted, learns the hash of the last recorded change, records an edit made
   * while the supervisor was down, then watches the file. Effects: reads and may restore city.toml;
   * appends to the log. @throws when city.toml cannot be read.
   */
  async start(): Promise<void> {
    await settlePendingWrite(this.opts.path, this.opts.log.journal);
    this.#writer.setKnown(await lastRecordedHash(this.opts.log.journal));
    this.#unlisten = this.#writer.onChange((config) => this.#adopt(config));
    this.#current = await this.#writer.read();
    const edited = await this.#writer.check(this.opts.log);
    if (edited) this.#current = edited;
    this.#started = { city: this.#current.city, services: this.#current.composed.services };
    // An edit to a pack the config reads reaches the city as an edit of city.toml does.
    this.#packs = new PackWatch(this.opts.path, (file) => {
      this.#writer.checkPacks(this.opts.log, file, this.#current).catch((err: unknown) => {
        this.opts.logger.warn({ err, city: this.opts.city, file }, 'pack check failed');
      });
    });
    this.#packs.follow(this.#current);
    try {
      this.#watcher = watch(this.opts.path, (_event, file) => {
        if (file === null || file === 'city.toml') this.#checkSoon();
      });
      this.#watcher.on('error', () => undefined);
      // The watch alone never keeps a process alive (the server does): a supervisor left without a stop,
      // as a crash test leaves one, must not hang its process.
      this.#watcher.unref();
    } catch (err) {
      this.opts.logger.warn({ err, city: this.opts.city }, 'city.toml is not watched; polled only');
    }
    const pollMs = this.opts.pollMs ?? 2000;
    if (pollMs > 0) {
      this.#timer = setInterval(() => this.#checkSoon(), pollMs);
      this.#timer.unref();
    }
  }

  async stop(): Promise<void> {
    this.#watcher?.close();
    this.#packs?.close();
    if (this.#timer) clearInterval(this.#timer);
    this.#unlisten?.();
  }

  #checkSoon(): void {
    this.#writer.check(this.opts.log).catch((err: unknown) => {
      this.opts.logger.warn({ err, city: this.opts.city }, 'city.toml check failed');
    });
  }

  #adopt(config: EffectiveConfig): void {
    this.#current = config;
    this.#packs?.follow(config);
    this.opts.sessions?.setConfig(config.city);
    this.opts.poke?.();
  }

  /** The effective config, after picking up a hand edit not seen yet. */
  async #fresh(): Promise<EffectiveConfig> {
    await this.#writer.check(this.opts.log);
    return this.#current;
  }

  async #write<T>(edit: ConfigEdit<T>): Promise<T> {
    return (await this.#writer.write(this.opts.log, edit)).result;
  }

  async config(): Promise<ConfigResponse> {
    return configView(await this.#fresh(), this.opts.city);
  }

  counts(): { agents: number; rigs: number; suspendedRigs: number } {
    const { agents, rigs } = this.#current.composed;
    return {
      agents: agents.length,
      rigs: rigs.length,
      suspendedRigs: rigs.filter((r) => r.suspended === true).length,
    };
  }

  defaults(): ConfigResponse {
    return defaultsView(this.opts.city);
  }

  async explain() {
    return explainView(await this.#fresh());
  }

  /**
   * The file as it is now, even when it is not valid TOML (then its one error names the line), with the
   * problems of its orders (`[orders]`, deprecated order files), which only this report carries: they
   * never stop a write.
   */
  async validate() {
    const text = await readFile(cityTomlPath(this.opts.path), 'utf8');
    try {
      const now = await effectiveConfigOf(this.opts.path, text, this.opts.city);
      const restart = this.#started
        ? restartProblems(this.#started, { city: now.city, services: now.composed.services })
        : [];
      const more = (await this.opts.moreProblems?.(this.opts.path)) ?? [];
      return validateView([...now.problems, ...restart, ...more]);
    } catch (err) {
      return validateView([tomlProblem((err as Error).cause ?? err)]);
    }
  }

  async packs(): Promise<PackResponse[]> {
    return (await this.#fresh()).packs.map((p) => ({ ...p }));
  }

  async providers(): Promise<ProviderResponse[]> {
    const c = await this.#fresh();
    return providerOrder(c).map((name) => this.#providerView(c, name));
  }

  async publicProviders(): Promise<ProviderPublicResponse[]> {
    const c = await this.#fresh();
    return providerOrder(c).map((name) => {
      const spec = resolveProvider(c.composed, name) ?? {};
      const out: ProviderPublicResponse = {
        name,
        builtin: isBuiltinProvider(name),
        city_level: isCityLevelProvider(c.composed, name),
      };
      if (strOf(spec.display_name)) out.display_name = textOf(spec.display_name);
      return out;
    });
  }

  async provider(name: string): Promise<ProviderResponse> {
    const c = await this.#fresh();
    if (!Object.hasOwn(c.composed.providers, name))
      throw new NotFoundError(`provider ${JSON.stringify(name)} not found`);
    return this.#providerView(c, name);
  }

  #providerView(c: EffectiveConfig, name: string): ProviderResponse {
    return {
      name,
      builtin: isBuiltinProvider(name),
      city_level: isCityLevelProvider(c.composed, name),
      ...providerSpecJson(resolveProvider(c.composed, name) ?? {}),
    };
  }

  createProvider(body: ProviderCreateInputBody, actor: string): Promise<string> {
    return this.#write(createProvider(actor, body));
  }

  updateProvider(name: string, body: ProviderUpdateInputBody, actor: string): Promise<void> {
    return this.#write(updateProvider(actor, name, body));
  }

  deleteProvider(name: string, actor: string): Promise<void> {
    return this.#write(deleteProvider(actor, name));
  }

  async rigs(options: { git?: boolean }): Promise<{ items: RigResponse[]; partialErrors: string[] }> {
    const c = await this.#fresh();
    const partialErrors: string[] = [];
    const items = await Promise.all(
      c.composed.rigs.map((r) => this.#rigView(c, r, options.git === true, partialErrors)),
    );
    return { items, partialErrors };
  }

  async rig(name: string, options: { git?: boolean }): Promise<RigResponse> {
    const c = await this.#fresh();
    const rig = c.composed.rigs.find((r) => r.name === name);
    if (!rig) throw new NotFoundError(`rig ${JSON.stringify(name)} not found`);
    return this.#rigView(c, rig, options.git === true, []);
  }

  async #rigView(
    c: EffectiveConfig,
    rig: Record<string, unknown>,
    git: boolean,
    partialErrors: string[],
  ): Promise<RigResponse> {
    const name = textOf(rig.name);
    const agents = c.composed.agents.filter((a) => strOf(a.dir) === name).map(agentIdentity);
    const open = this.opts.sessions?.book.openSessions() ?? [];
    const running = new Set(
      open.filter((s) => s.state === 'active' && agents.includes(s.template)).map((s) => s.template),
    );
    const out: RigResponse = { ...rigView(rig), agent_count: agents.length, running_count: running.size };
    if (strOf(rig.default_branch)) out.default_branch = textOf(rig.default_branch);
    if (git) {
      const dir = isAbsolute(out.path) ? out.path : resolve(this.opts.path, out.path);
      try {
        out.git = await gitStatus(dir);
      } catch (err) {
        partialErrors.push(`rig ${name}: git status: ${(err as Error).message.split('\n')[0] ?? ''}`);
      }
    }
    return out;
  }

  createRig(body: RigCreateInputBody, actor: string): Promise<string> {
    return this.#write(createRig(actor, body));
  }

  updateRig(name: string, body: RigUpdateInputBody, actor: string): Promise<void> {
    return this.#write(updateRig(actor, name, body));
  }

  deleteRig(name: string, actor: string): Promise<void> {
    return this.#write(deleteRig(actor, name));
  }

  /**
   * suspend / resume set the rig's `suspended` (its agents are then held, or started again); restart stops
   * the running sessions of its agents, which the reconciler starts again.
   */
  async rigAction(name: string, action: RigAction, actor: string): Promise<RigActionBody> {
    if (action !== 'restart') {
      await this.updateRig(name, { suspended: action === 'suspend' }, actor);
      return { action, rig: name, status: 'ok' };
    }
    const c = await this.#fresh();
    if (!c.composed.rigs.some((r) => r.name === name))
      throw new NotFoundError(`rig ${JSON.stringify(name)} not found`);
    const agents = new Set(c.composed.agents.filter((a) => strOf(a.dir) === name).map(agentIdentity));
    const killed: string[] = [];
    const failed: string[] = [];
    for (const s of this.opts.sessions?.book.openSessions() ?? []) {
      if (!agents.has(s.template)) continue;
      const who = s.alias || s.template;
      try {
        await this.opts.sessions!.kill(s.id, { actor });
        killed.push(who);
      } catch (err) {
        this.opts.logger.warn(
          { err, city: this.opts.city, session: s.id },
          'rig restart: session not stopped',
        );
        failed.push(who);
      }
    }
    this.opts.poke?.();
    const status = failed.length === 0 ? 'ok' : killed.length === 0 ? 'failed' : 'partial';
    return { action, rig: name, status, killed, failed };
  }

  async patches(kind: PatchKind): Promise<PatchRecord[]> {
    return patchTables((await this.#fresh()).raw, kind).map((t) => patchRecord(kind, t));
  }

  async patch(kind: PatchKind, key: string): Promise<PatchRecord> {
    const found = patchTables((await this.#fresh()).raw, kind).find((t) => patchKey(kind, t) === key);
    if (!found) throw new NotFoundError(`${kind} patch ${JSON.stringify(key)} not found`);
    return patchRecord(kind, found);
  }

  putPatch(kind: PatchKind, body: Record<string, unknown>, actor: string): Promise<PatchAnswer> {
    return this.#write(putPatch(actor, kind, body));
  }

  deletePatch(kind: PatchKind, key: string, actor: string): Promise<PatchAnswer> {
    return this.#write(deletePatch(actor, kind, key));
  }
}

/** Builtins in upstream's order (then ours), then the city's own, by name. */
function providerOrder(c: EffectiveConfig): string[] {
  const builtin = [...Object.keys(BUILTIN_PROVIDERS).filter((n) => n !== 'mock'), 'mock'].filter((n) =>
    Object.hasOwn(c.composed.providers, n),
  );
  const own = Object.keys(c.composed.providers)
    .filter((n) => !isBuiltinProvider(n))
    .sort();
  return [...builtin, ...own];
}
