import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { restartDelayMs, type RestartPolicy } from '../../machines/workspaceServices/restartPolicy.ts';
import type { ServiceSpec } from '../../machines/workspaceServices/serviceSpec.ts';
import type { EventDraft } from '../../schemas/event.ts';
import { killLeftover, removePidFile, writePidFile } from './pidFile.ts';
import { removeSocket } from './socketPath.ts';

/** The local state of a supervised process, as upstream names it. */
export type LocalState = 'starting' | 'ready' | 'degraded' | 'stopped';

/** What one supervised service sees of its city. */
export interface ServiceProcessContext {
  cityName: string;
  cityPath: string;
  spec: ServiceSpec;
  socketPath: string;
  policy: RestartPolicy;
  /** Records a notice on the city log (fire and forget: supervision never waits on the log). */
  record(draft: EventDraft): void;
  clock: () => Date;
}

/** The process part of a service's status. */
export interface ProcessStatus {
  localState: LocalState;
  reason: string;
  updatedAt: Date;
  pid?: number;
}

/** How often a starting process's socket is tried (upstream: every 100 ms). */
const READY_POLL_MS = 20;
/** A health check that takes longer has failed (upstream's 500 ms). */
const HEALTH_TIMEOUT_MS = 500;

/**
 * One `proxy_process` workspace service: its child process (in its own process group, stdout and stderr
 * appended to `<state_root>/logs/service.log`), readiness (the socket accepts a connection and, with a
 * `health_path`, that path answers 2xx), periodic health checks, and restart with exponential backoff after
 * a crash or a start that never became ready. Effects: spawns and signals processes, opens sockets, writes
 * the service log, records `service.*` notices.
 */
export class ServiceProcess {
  #child: ChildProcess | undefined;
  #state: LocalState = 'starting';
  #reason = '';
  #updatedAt: Date;
  #failures = 0;
  #attempts = 0;
  #readyAt: number | undefined;
  #restartTimer: NodeJS.Timeout | undefined;
  #healthTimer: NodeJS.Timeout | undefined;
  /** Why the current child is being killed by us (a readiness timeout), told in its `service.exited`. */
  #killReason: string | undefined;
  /** The current child is being stopped on purpose: its exit is not a crash. */
  #stopping = false;
  #closed = false;
  /** Settles once the latest spawn became ready or went away. */
  #settled: Promise<void> = Promise.resolve();
  readonly #stateRoot: string;

  constructor(private readonly ctx: ServiceProcessContext) {
    this.#updatedAt = ctx.clock();
    this.#stateRoot = join(ctx.cityPath, ctx.spec.stateRoot);
  }

  get socketPath(): string {
    return this.ctx.socketPath;
  }

  get ready(): boolean {
    return this.#state === 'ready' && this.#child !== undefined;
  }

  status(): ProcessStatus {
    const pid = this.#child?.pid;
    return {
      localState: this.#state,
      reason: this.#reason,
      updatedAt: this.#updatedAt,
      ...(pid !== undefined ? { pid } : {}),
    };
  }

  /** Starts the first process; resolves once it is ready or has failed (and a restart is scheduled). */
  start(): Promise<void> {
    this.#spawn();
    return this.#settled;
  }

  /**
   * Stops the running process (recorded as `service.stopped`, reason `restart`) and starts a fresh one with
   * the failure count reset; resolves once the new one is ready or has failed.
   */
  async restart(): Promise<void> {
    if (this.#closed) return;
    clearTimeout(this.#restartTimer);
    await this.#stopChild();
    this.ctx.record(this.#notice('service.stopped', { service: this.ctx.spec.name, reason: 'restart' }));
    this.#failures = 0;
    this.#spawn();
    await this.#settled;
  }

  /** Stops the process for good (the city stops). Idempotent. */
  async stop(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#restartTimer);
    const had = this.#child !== undefined;
    await this.#stopChild();
    this.#set('stopped', 'service_closed');
    await removePidFile(this.#stateRoot).catch(() => undefined);
    if (had)
      this.ctx.record(this.#notice('service.stopped', { service: this.ctx.spec.name, reason: 'city_stop' }));
    await removeSocket(this.ctx.socketPath).catch(() => undefined);
  }

  #notice<K extends 'service.started' | 'service.ready' | 'service.exited' | 'service.stopped'>(
    type: K,
    payload: Extract<EventDraft, { type: K }>['payload'],
  ): EventDraft {
    return { type, actor: 'controller', subject: this.ctx.spec.name, payload } as EventDraft;
  }

  #set(state: LocalState, reason = ''): void {
    this.#state = state;
    this.#reason = reason;
    this.#updatedAt = this.ctx.clock();
  }

  #spawn(): void {
    if (this.#closed) return;
    let settle!: () => void;
    this.#settled = new Promise<void>((resolve) => (settle = resolve));
    void this.#launch().then(settle, settle);
  }

  async #launch(): Promise<void> {
    const { spec, socketPath, cityPath, cityName } = this.ctx;
    await removeSocket(socketPath);
    // A supervisor killed without stopping its services left their processes running: end them first.
    if (this.#attempts === 0) await killLeftover(this.#stateRoot).catch(() => undefined);
    if (this.#closed) return; // stopped while the old socket was being removed
    this.#killReason = undefined;
    let child: ChildProcess;
    try {
      mkdirSync(join(this.#stateRoot, 'logs'), { recursive: true });
      mkdirSync(join(this.#stateRoot, 'run'), { recursive: true });
      const log = openSync(join(this.#stateRoot, 'logs', 'service.log'), 'a');
      try {
        child = spawn(spec.command[0]!, spec.command.slice(1), {
          cwd: cityPath,
          detached: true, // its own process group: a stop reaches whatever it spawned
          stdio: ['ignore', log, log],
          env: {
            ...process.env,
            GC_CITY: cityName,
            GC_CITY_PATH: cityPath,
            GC_SERVICE_NAME: spec.name,
            GC_SERVICE_STATE_ROOT: this.#stateRoot,
            GC_SERVICE_RUN_ROOT: join(this.#stateRoot, 'run'),
            GC_SERVICE_SOCKET: socketPath,
            GC_SERVICE_URL_PREFIX: `/svc/${spec.name}`,
            GC_SERVICE_PUBLIC_URL: '',
            GC_SERVICE_VISIBILITY: spec.visibility,
          },
        });
      } finally {
        closeSync(log); // the child holds its own copy
      }
    } catch (err) {
      return this.#failed(undefined, null, null, `start process: ${(err as Error).message}`);
    }
    this.#child = child;
    this.#attempts += 1;
    this.#readyAt = undefined;
    this.#set('starting');
    const gone = new Promise<void>((resolve) => {
      let done = false;
      const end = (code: number | null, signal: NodeJS.Signals | null, why?: string) => {
        if (done) return;
        done = true;
        this.#gone(child, code, signal, why);
        resolve();
      };
      child.once('error', (err) => end(null, null, `start process: ${err.message}`));
      child.once('exit', (code, signal) => end(code, signal));
    });
    if (child.pid !== undefined) await writePidFile(this.#stateRoot, child.pid).catch(() => undefined);
    if (child.pid !== undefined)
      this.ctx.record(
        this.#notice('service.started', { service: spec.name, pid: child.pid, attempt: this.#attempts }),
      );
    const ready = await Promise.race([this.#waitReady(child), gone.then(() => false)]);
    // Stopped (a restart, the city) while starting: whoever stopped it owns what comes next.
    if (this.#child !== child || this.#stopping || this.#closed) return;
    if (!ready) {
      this.#killReason = `service ${spec.name} did not become ready within ${this.ctx.policy.readyTimeoutMs} ms`;
      this.#kill(child);
      await gone;
      return;
    }
    this.#readyAt = Date.now();
    this.#set('ready');
    this.ctx.record(this.#notice('service.ready', { service: spec.name, pid: child.pid! }));
    if (spec.healthPath)
      this.#healthTimer = setInterval(() => void this.#checkHealth(child), this.ctx.policy.healthEveryMs);
  }

  /** Tries the socket (and the health path) until it answers or the ready timeout passes. */
  async #waitReady(child: ChildProcess): Promise<boolean> {
    const deadline = Date.now() + this.ctx.policy.readyTimeoutMs;
    while (
      Date.now() < deadline &&
      this.#child === child &&
      child.exitCode === null &&
      child.signalCode === null
    ) {
      if ((await this.#dial()) && (!this.ctx.spec.healthPath || (await this.#healthy()) === undefined))
        return true;
      await sleep(READY_POLL_MS);
    }
    return false;
  }

  #dial(): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = connect({ path: this.ctx.socketPath });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  }

  /** GETs the health path over the socket: undefined when it answered 2xx, else why not. */
  #healthy(): Promise<string | undefined> {
    return new Promise((resolve) => {
      const req = request(
        { socketPath: this.ctx.socketPath, path: this.ctx.spec.healthPath, timeout: HEALTH_TIMEOUT_MS },
        (res) => {
          res.resume();
          const code = res.statusCode ?? 0;
          resolve(code >= 200 && code < 300 ? undefined : `health check returned ${code}`);
        },
      );
      req.once('timeout', () => req.destroy(new Error('timed out')));
      req.once('error', (err) => resolve(`health check failed: ${err.message}`));
      req.end();
    });
  }

  async #checkHealth(child: ChildProcess): Promise<void> {
    const problem = await this.#healthy();
    if (this.#child !== child || this.#stopping) return;
    if (problem === undefined) {
      if (this.#state !== 'ready') this.#set('ready');
    } else this.#set('degraded', problem);
  }

  #gone(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null, why?: string): void {
    if (this.#child !== child) return;
    this.#child = undefined;
    clearInterval(this.#healthTimer);
    if (this.#stopping || this.#closed) return;
    const reason =
      this.#killReason ??
      why ??
      (code !== null ? `process exited with code ${code}` : `process killed by ${signal ?? 'a signal'}`);
    this.#killReason = undefined;
    this.#failed(child.pid, code, signal, reason);
  }

  /** A start failed or a process died: degraded, and a restart after the backoff. */
  #failed(pid: number | undefined, code: number | null, signal: NodeJS.Signals | null, reason: string): void {
    const { policy } = this.ctx;
    if (this.#readyAt !== undefined && Date.now() - this.#readyAt >= policy.stableMs) this.#failures = 0;
    this.#failures += 1;
    const delay = restartDelayMs(this.#failures, policy);
    this.#set('degraded', reason);
    this.ctx.record(
      this.#notice('service.exited', {
        service: this.ctx.spec.name,
        pid: pid ?? 0,
        exit_code: code,
        signal,
        reason,
        failures: this.#failures,
        restart_in_ms: delay,
      }),
    );
    clearTimeout(this.#restartTimer);
    this.#restartTimer = setTimeout(() => this.#spawn(), delay);
  }

  /** Stops the current child (TERM to its group, KILL after the grace) and waits for it to be gone. */
  async #stopChild(): Promise<void> {
    const child = this.#child;
    clearInterval(this.#healthTimer);
    if (!child) return;
    this.#stopping = true;
    try {
      const exited = new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) resolve();
        else child.once('exit', () => resolve());
      });
      this.#kill(child, 'SIGTERM');
      const killed = setTimeout(() => this.#kill(child, 'SIGKILL'), this.ctx.policy.stopGraceMs);
      await exited;
      clearTimeout(killed);
    } finally {
      if (this.#child === child) this.#child = undefined;
      this.#stopping = false;
    }
  }

  #kill(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      child.kill(signal); // the group is gone already, or was never made
    }
  }
}
