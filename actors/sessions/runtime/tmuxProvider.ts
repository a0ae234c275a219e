/**
 * The default runtime: each session is a tmux session on the city's private server (`tmux -L <socket>`).
 * Sessions outlive the supervisor; the identity the supervisor minted is kept in session user options
 * (`@gc_session_id`, `@gc_instance_token`, `@gc_city`) so one `list-panes -a` tells ours from foreign ones,
 * also after a restart. Dead panes stay (`remain-on-exit`) so an exit is seen with its status.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { processTree, terminate } from './processTree.ts';
import {
  RuntimeError,
  SessionDiedDuringStartupError,
  SessionExistsError,
  SessionNotFoundError,
  type Observation,
  type RuntimeCapabilities,
  type RuntimeProvider,
  type SessionIdentity,
  type StartConfig,
} from './provider.ts';
import { hasReadyLine, lastLines, trimRendered } from './screen.ts';
import { paneTarget, sessionTarget, TmuxCommand } from './tmuxCommand.ts';

export interface TmuxProviderOptions {
  /** The tmux server's socket name (`tmuxSocketFor(city, home)`). */
  socket: string;
  /** The tmux binary. */
  bin?: string;
  /** Between two looks at the pane while waiting for the ready prompt. */
  pollMs?: number;
  /** The start deadline when the caller's signal has none. */
  startTimeoutMs?: number;
  /** Between SIGTERM and SIGKILL when stopping. */
  stopGraceMs?: number;
}

const IDENTITY_OPTIONS = {
  sessionId: '@gc_session_id',
  instanceToken: '@gc_instance_token',
  city: '@gc_city',
};
const SEP = '\x1f';
// One row per pane of every session: what observe() needs, identity included, in one call.
const OBSERVE_FORMAT = [
  '#{session_name}',
  '#{window_index}',
  '#{pane_index}',
  '#{pane_pid}',
  '#{pane_dead}',
  '#{pane_dead_status}',
  '#{@gc_exit_status}',
  '#{window_activity}',
  '#{session_attached}',
  `#{${IDENTITY_OPTIONS.sessionId}}`,
  `#{${IDENTITY_OPTIONS.instanceToken}}`,
  `#{${IDENTITY_OPTIONS.city}}`,
].join(SEP);
const META_KEY = /^[A-Za-z0-9_.-]+$/;

export class TmuxProvider implements RuntimeProvider {
  readonly kind = 'tmux';
  readonly capabilities: RuntimeCapabilities = { attach: true, activity: true, survivesRestart: true };
  readonly socket: string;
  private readonly tmux: TmuxCommand;
  private readonly bin: string;
  private readonly pollMs: number;
  private readonly startTimeoutMs: number;
  private readonly stopGraceMs: number;

  constructor(opts: TmuxProviderOptions) {
    this.socket = opts.socket;
    this.bin = opts.bin ?? 'tmux';
    this.tmux = new TmuxCommand(opts.socket, this.bin);
    this.pollMs = opts.pollMs ?? 30;
    this.startTimeoutMs = opts.startTimeoutMs ?? 30_000;
    this.stopGraceMs = opts.stopGraceMs ?? 2_000;
  }

  async start(name: string, cfg: StartConfig, signal?: AbortSignal): Promise<void> {
    const deadline = signal ?? AbortSignal.timeout(this.startTimeoutMs);
    try {
      await this.create(name, cfg, deadline);
    } catch (err) {
      if (!(err instanceof RuntimeError) || !err.message.includes('duplicate session')) throw err;
      // A dead pane kept for forensics is not a live session: it gives way to the new start.
      const panes = await this.panes(name).catch(() => []);
      if (panes.some((p) => !p.dead)) throw new SessionExistsError(`session ${name} exists`, { cause: err });
      await this.tmux.run(['kill-session', '-t', sessionTarget(name)]).catch(ignoreNotFound);
      await this.create(name, cfg, deadline).catch((again: unknown) => {
        throw again instanceof RuntimeError && again.message.includes('duplicate session')
          ? new SessionExistsError(`session ${name} exists`, { cause: again })
          : again;
      });
    }
    try {
      await this.awaitReady(name, cfg, deadline);
    } catch (err) {
      await this.discardOwn(name, cfg.identity.instanceToken);
      throw err;
    }
  }

  private async create(name: string, cfg: StartConfig, signal: AbortSignal): Promise<void> {
    const target = paneTarget(name);
    const identity: Record<string, string> = {
      GC_SESSION_ID: cfg.identity.sessionId,
      GC_INSTANCE_TOKEN: cfg.identity.instanceToken,
      GC_CITY: cfg.identity.city,
    };
    const env = { ...cfg.env, ...identity };
    const setEnv = Object.entries(env).flatMap(([k, v]) => (v === '' ? [] : ['-e', `${k}=${v}`]));
    const unset = Object.entries(env).flatMap(([k, v]) => (v === '' ? ['-u', k] : []));
    // The shell records the command's exit status in a pane option before it ends: tmux itself loses the
    // status of a pane now and then (about 1 in 20 quick exits under 3.3a), and a crash is read by it.
    const argv =
      cfg.command === '' ? [] : ['sh', '-c', `${recordExitStatus(this.bin)}\n${cfg.command}\nexit $?`];
    const command = unset.length > 0 ? ['env', ...unset, ...(argv.length > 0 ? argv : ['sh'])] : argv;
    // One invocation, so the options are in place before the process can exit (a crash at once stays visible).
    await this.tmux.chain(
      [
        [
          'new-session',
          '-d',
          '-s',
          name,
          '-c',
          cfg.workDir,
          '-x',
          '200',
          '-y',
          '50',
          ...setEnv,
          '--',
          ...command,
        ],
        ['set-option', '-w', '-t', target, 'remain-on-exit', 'on'],
        // Stray mouse bytes make some TUIs interrupt themselves; activity alerts are noise here.
        ['set-option', '-t', target, 'mouse', 'off'],
        ['set-option', '-w', '-t', target, 'monitor-activity', 'off'],
        ['set-option', '-t', target, IDENTITY_OPTIONS.sessionId, cfg.identity.sessionId],
        ['set-option', '-t', target, IDENTITY_OPTIONS.instanceToken, cfg.identity.instanceToken],
        ['set-option', '-t', target, IDENTITY_OPTIONS.city, cfg.identity.city],
      ],
      signal,
    );
  }

  private async awaitReady(name: string, cfg: StartConfig, signal: AbortSignal): Promise<void> {
    const prefix = cfg.readyPromptPrefix;
    const delayUntil = prefix ? 0 : Date.now() + (cfg.readyDelayMs ?? 0);
    const target = paneTarget(name);
    for (;;) {
      // The screen and the pane's state in one call.
      const out = await this.tmux
        .chain(
          [
            ['capture-pane', '-p', '-t', target],
            [
              'display-message',
              '-p',
              '-t',
              target,
              `${SEP}#{pane_dead}${SEP}#{pane_dead_status}${SEP}#{@gc_exit_status}`,
            ],
          ],
          signal,
        )
        .catch((err: unknown) => {
          if (err instanceof SessionNotFoundError) {
            throw new SessionDiedDuringStartupError(`session ${name} ended during start-up`, { cause: err });
          }
          throw startFailure(name, err, signal);
        });
      const at = out.indexOf(SEP, out.lastIndexOf('\n', out.length - 2) + 1);
      const screen = out.slice(0, at);
      const [dead, tmuxStatus = '', ownStatus = ''] = out
        .slice(at + 1)
        .trim()
        .split(SEP);
      if (dead === '1') {
        const status = exitStatus(ownStatus, tmuxStatus);
        const shown = lastLines(trimRendered(trimRendered(screen).replace(/Pane is dead.*$/, '')), 10);
        throw new SessionDiedDuringStartupError(
          `session ${name} exited${status !== undefined ? ` with status ${status}` : ''} during start-up` +
            (shown ? `; its last output:\n${shown}` : ''),
        );
      }
      if (prefix ? hasReadyLine(screen, prefix) : Date.now() >= delayUntil) return;
      if (signal.aborted) throw startFailure(name, signal.reason, signal);
      await sleep(this.pollMs, undefined, { signal }).catch(() => undefined);
    }
  }

  /** Removes a session this start created, never one whose instance token is another's. */
  private async discardOwn(name: string, token: string): Promise<void> {
    const held = await this.tmux
      .run(['show-options', '-v', '-q', '-t', paneTarget(name), IDENTITY_OPTIONS.instanceToken])
      .catch(() => undefined);
    if (held?.trim() !== token) return;
    await this.stop(name);
  }

  async stop(name: string): Promise<void> {
    let panes: Pane[];
    try {
      panes = await this.panes(name);
    } catch (err) {
      return ignoreNotFound(err);
    }
    // A dead pane's pid may belong to someone else by now; only live panes' trees are signalled.
    const live = panes.filter((p) => !p.dead && p.pid > 0);
    const pids = [...new Set(live.flatMap((p) => processTree(p.pid)))];
    if (pids.length > 0) {
      // Each pane's process leads its own group (tmux starts it with setsid).
      await Promise.all(live.map((p) => terminate(pids, p.pid, this.stopGraceMs)));
    }
    await this.tmux.run(['kill-session', '-t', sessionTarget(name)]).catch(ignoreNotFound);
  }

  async interrupt(name: string): Promise<void> {
    await this.tmux.run(['send-keys', '-t', paneTarget(name), 'C-c']).catch(ignoreNotFound);
  }

  async observe(prefix = ''): Promise<Map<string, Observation>> {
    let out: string;
    try {
      out = await this.tmux.run(['list-panes', '-a', '-F', OBSERVE_FORMAT]);
    } catch (err) {
      if (err instanceof SessionNotFoundError) return new Map();
      // A server whose last session has just ended answers so until it exits: it has no panes.
      if (err instanceof RuntimeError && /no current target/.test(err.message)) return new Map();
      throw err;
    }
    const seen = new Map<string, Observation & { first: string }>();
    for (const row of out.split('\n')) {
      const f = row.split(SEP);
      if (f.length !== 12) continue;
      const [session, window, pane, pid, dead, tmuxStatus, ownStatus, activity, attached, id, token, city] =
        f as Fields;
      if (!session.startsWith(prefix)) continue;
      const order = `${window.padStart(6, '0')}.${pane.padStart(6, '0')}`;
      const lastActivity = Number(activity) * 1000 || 0;
      const prev = seen.get(session);
      if (prev) {
        // A session with several panes: the first pane is the agent's, activity is the latest of all.
        prev.lastActivity = Math.max(prev.lastActivity, lastActivity);
        if (order > prev.first) continue;
      }
      const identity: SessionIdentity | undefined =
        id !== '' && token !== '' ? { sessionId: id, instanceToken: token, city } : undefined;
      seen.set(session, {
        first: order,
        name: session,
        running: dead === '0',
        pid: Number(pid) || undefined,
        exitCode: dead === '1' ? exitStatus(ownStatus, tmuxStatus) : undefined,
        lastActivity: Math.max(prev?.lastActivity ?? 0, lastActivity),
        attached: Number(attached) > 0,
        identity,
      });
    }
    const result = new Map<string, Observation>();
    for (const [session, { first: _first, ...obs }] of seen) {
      result.set(session, dropUndefined(obs));
    }
    return result;
  }

  async nudge(name: string, text: string): Promise<void> {
    const target = paneTarget(name);
    // Literal text, then Enter as a key of its own (a TUI reads a pasted newline as part of the text); the
    // pane's state comes back from the same call: keys typed into a dead pane go nowhere.
    const out = await this.tmux.chain([
      ['display-message', '-p', '-t', target, '#{pane_dead}'],
      ['send-keys', '-t', target, '-l', '--', text],
      ['send-keys', '-t', target, 'Enter'],
    ]);
    if (out.trim() !== '0') throw new SessionNotFoundError(`session ${name} is not running`);
  }

  async sendKeys(name: string, ...keys: string[]): Promise<void> {
    const target = paneTarget(name);
    const out = await this.tmux.chain([
      ['display-message', '-p', '-t', target, '#{pane_dead}'],
      ...(keys.length > 0 ? [['send-keys', '-t', target, ...keys]] : []),
    ]);
    if (out.trim() !== '0') throw new SessionNotFoundError(`session ${name} is not running`);
  }

  async peek(name: string, lines: number): Promise<string> {
    const start = lines > 0 ? `-${lines}` : '-';
    const out = await this.tmux.run(['capture-pane', '-p', '-t', paneTarget(name), '-S', start]);
    return lastLines(trimRendered(out), lines);
  }

  async getMeta(name: string, key: string): Promise<string> {
    // Not `-q`: it also silences an unknown session. An unset user option is "invalid option".
    try {
      const out = await this.tmux.run(['show-options', '-v', '-t', paneTarget(name), metaOption(key)]);
      return out.replace(/\n$/, '');
    } catch (err) {
      if (err instanceof RuntimeError && /invalid option/.test(err.message)) return '';
      throw err;
    }
  }

  async setMeta(name: string, key: string, value: string): Promise<void> {
    await this.tmux.run(['set-option', '-t', paneTarget(name), metaOption(key), value]);
  }

  async removeMeta(name: string, key: string): Promise<void> {
    await this.tmux.run(['set-option', '-u', '-t', paneTarget(name), metaOption(key)]);
  }

  attachCommand(name: string): string[] {
    return ['tmux', '-L', this.socket, 'attach-session', '-t', sessionTarget(name)];
  }

  async close(): Promise<void> {
    // Sessions live on in the tmux server; nothing is held in this process.
  }

  private async panes(name: string): Promise<Pane[]> {
    const out = await this.tmux.run([
      'list-panes',
      '-s',
      '-t',
      // `=name` alone still matches a longer name here; the pane form does not.
      paneTarget(name),
      '-F',
      `#{pane_pid}${SEP}#{pane_dead}`,
    ]);
    return out
      .split('\n')
      .filter(Boolean)
      .map((row) => {
        const [pid, dead] = row.split(SEP);
        return { pid: Number(pid), dead: dead === '1' };
      });
  }
}

type Fields = [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
];

interface Pane {
  pid: number;
  dead: boolean;
}

// Meta keys are user options of their own namespace, apart from the identity options.
function metaOption(key: string): string {
  if (!META_KEY.test(key)) throw new RuntimeError(`invalid meta key ${JSON.stringify(key)}`);
  return `@meta_${key}`;
}

// An EXIT trap, so that `exit N` in the command is recorded too. Inside the pane, $TMUX names this server.
function recordExitStatus(bin: string): string {
  return (
    `trap '__gc_status=$?; ${bin.replace(/'/g, '')} set-option -p -t "$TMUX_PANE" @gc_exit_status "$__gc_status"` +
    ` 2>/dev/null; exit $__gc_status' EXIT`
  );
}

function exitStatus(own: string, tmux: string): number | undefined {
  const text = own !== '' ? own : tmux;
  return text === '' ? undefined : Number(text);
}

function ignoreNotFound(err: unknown): void {
  if (!(err instanceof SessionNotFoundError)) throw err;
}

function startFailure(name: string, err: unknown, signal: AbortSignal): RuntimeError {
  if (err instanceof RuntimeError) return err;
  if (signal.aborted) {
    return new RuntimeError(`session ${name} was not ready before the start deadline`, {
      cause: signal.reason,
    });
  }
  return new RuntimeError(`session ${name} failed to start: ${String(err)}`, { cause: err });
}

function dropUndefined<T extends object>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}
