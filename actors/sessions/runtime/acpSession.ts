/**
 * One ACP session: the agent's process on pipes, the SDK's client connection over its stdio, and what the
 * protocol tells folded into what a session shows: `session/update` text, thoughts and tool calls as
 * rendered lines (peek, the stream's screen), the time of the last update (activity), permission requests as
 * the pending interaction. Prompts go one turn at a time in the order nudged. Anything the agent does that
 * the protocol does not allow (a line that is not JSON-RPC, a line over the size limit, a request of a
 * method the client does not have) is a session error: the process is stopped and the error shown.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { constants } from 'node:os';
import {
  client,
  methods,
  PROTOCOL_VERSION,
  RequestError,
  type AnyMessage,
  type ClientConnection,
  type InitializeResponse,
  type PermissionOption,
  type RequestPermissionResponse,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import type { PendingInteraction } from '../pending/detect.ts';
import { AcpConversation } from './acpConversation.ts';
import { WorkDirAccess } from './acpWorkDir.ts';
import { processTree, terminate } from './processTree.ts';
import type { SessionIdentity, StartConfig } from './provider.ts';

export interface AcpLimits {
  /** The longest line the agent may send (bytes). */
  maxLineBytes: number;
  /** Rendered lines kept for peek. */
  maxLines: number;
  stopGraceMs: number;
}

interface Asked {
  interaction: PendingInteraction;
  options: PermissionOption[];
  answer: (r: RequestPermissionResponse) => void;
}

export class AcpSession {
  running = true;
  exitCode?: number;
  /** Why the session was ended by us (a protocol violation); undefined for a process that ended by itself. */
  error?: string;
  lastActivity = 0;
  /** The agent's session id once `session/new` (or `session/load`) answered. */
  agentSessionId?: string;
  /** How the session began: `new`, or `load` (the agent's earlier session reattached). */
  began?: 'new' | 'load';
  /** The conversation from the protocol's updates (the transcript of an agent whose log is not found). */
  readonly conversation = new AcpConversation();
  init?: InitializeResponse;
  readonly meta = new Map<string, string>();
  /** `change`: new output, a turn's end, a permission asked, the end of the process. */
  readonly events = new EventEmitter();
  readonly exited: Promise<void>;
  readonly proc: ChildProcessWithoutNullStreams;
  readonly conn: ClientConnection;
  private readonly lines: string[] = [];
  private partial = '';
  private partialKind = '';
  private readonly queue: string[] = [];
  private busy = false;
  private readonly asked: Asked[] = [];
  private readonly access: WorkDirAccess;

  constructor(
    readonly name: string,
    readonly identity: SessionIdentity,
    cfg: StartConfig,
    private readonly limits: AcpLimits,
  ) {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [key, value] of Object.entries(cfg.env ?? {})) {
      if (value === '') delete env[key];
      else env[key] = value;
    }
    env.GC_SESSION_ID = identity.sessionId;
    env.GC_INSTANCE_TOKEN = identity.instanceToken;
    env.GC_CITY = identity.city;
    this.access = new WorkDirAccess(cfg.workDir);
    this.proc = spawn('sh', ['-c', cfg.command], { cwd: cfg.workDir, env, detached: true });
    this.proc.stdin.on('error', () => undefined);
    // stderr is the agent's own talk (auth hints, crashes): shown as it comes.
    this.proc.stderr.on('data', (c: Buffer) => this.write(c.toString('utf8'), 'stderr'));
    this.exited = new Promise((resolve) => {
      const end = (code: number | null, sig: NodeJS.Signals | null) => {
        if (!this.running) return;
        this.running = false;
        if (code !== null) this.exitCode = code;
        else if (sig !== null) this.exitCode = 128 + (constants.signals[sig] ?? 0);
        this.access.close();
        for (const a of this.asked.splice(0)) a.answer({ outcome: { outcome: 'cancelled' } });
        this.changed();
        resolve();
      };
      this.proc.on('exit', end);
      this.proc.on('error', (err) => {
        this.write(`${err.message}\n`, 'stderr');
        if (this.proc.pid === undefined) end(127, null);
      });
    });
    this.conn = this.clientApp().connect({ readable: this.incoming(), writable: this.outgoing() });
  }

  /** The client's side of the protocol: what the agent may ask and tell. */
  private clientApp() {
    const access = this.access;
    return client({ name: 'gc' })
      .onNotification(methods.client.session.update, ({ params }) => this.fold(params.update))
      .onRequest(methods.client.session.requestPermission, ({ params }) => this.ask(params))
      .onRequest(methods.client.fs.readTextFile, ({ params }) => access.readTextFile(params))
      .onRequest(methods.client.fs.writeTextFile, ({ params }) => access.writeTextFile(params))
      .onRequest(methods.client.terminal.create, ({ params }) => access.createTerminal(params))
      .onRequest(methods.client.terminal.output, ({ params }) => access.terminalOutput(params))
      .onRequest(methods.client.terminal.waitForExit, ({ params }) => access.waitForExit(params))
      .onRequest(methods.client.terminal.kill, ({ params }) => access.killTerminal(params))
      .onRequest(methods.client.terminal.release, ({ params }) => access.releaseTerminal(params))
      .onRequest('*', ({ method }) => {
        void this.fail(`the agent asked for ${method}, which the ACP client does not have`);
        throw RequestError.methodNotFound(method);
      });
  }

  /** The agent's stdout as JSON-RPC messages, one a line; a line that is not one ends the session. */
  private incoming(): ReadableStream<AnyMessage> {
    const stdout = this.proc.stdout;
    let closed = false;
    return new ReadableStream<AnyMessage>({
      start: (controller) => {
        let chunks: Buffer[] = [];
        let size = 0;
        const line = (bytes: Buffer): void => {
          const text = bytes.toString('utf8').trim();
          if (text === '') return;
          let message: unknown;
          try {
            message = JSON.parse(text);
          } catch {
            void this.fail(`the agent sent a line that is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
            return;
          }
          if (
            typeof message !== 'object' ||
            message === null ||
            (message as { jsonrpc?: unknown }).jsonrpc !== '2.0'
          ) {
            void this.fail(`the agent sent a message that is not JSON-RPC 2.0: ${text.slice(0, 80)}`);
            return;
          }
          if (!closed) controller.enqueue(message as AnyMessage);
        };
        stdout.on('data', (chunk: Buffer) => {
          if (this.error) return;
          let at = chunk.indexOf(10);
          let from = 0;
          while (at >= 0) {
            line(Buffer.concat([...chunks, chunk.subarray(from, at)]));
            chunks = [];
            size = 0;
            from = at + 1;
            at = chunk.indexOf(10, from);
          }
          if (from < chunk.length) {
            chunks.push(chunk.subarray(from));
            size += chunk.length - from;
          }
          if (size > this.limits.maxLineBytes) {
            chunks = [];
            size = 0;
            void this.fail(`the agent sent a line over ${this.limits.maxLineBytes} bytes`);
          }
        });
        stdout.on('end', () => {
          if (closed) return;
          closed = true;
          controller.close();
        });
      },
      cancel: () => {
        closed = true;
      },
    });
  }

  private outgoing(): WritableStream<AnyMessage> {
    return new WritableStream<AnyMessage>({
      write: (message) => {
        if (this.running) this.proc.stdin.write(`${JSON.stringify(message)}\n`);
      },
    });
  }

  /**
   * `initialize`, then `session/load` of `loadId` when there is one and the agent offers it
   * (`agentCapabilities.loadSession`: its replay of the history is folded as any update), else (or when the
   * load is refused) `session/new`; resolves once the session takes prompts. @throws Error with the agent's words.
   */
  async handshake(workDir: string, loadId?: string): Promise<void> {
    this.init = await this.conn.agent.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      clientInfo: { name: 'gc', version: '1' },
    });
    if (loadId && this.init.agentCapabilities?.loadSession === true) {
      try {
        await this.conn.agent.request(methods.agent.session.load, {
          sessionId: loadId,
          cwd: workDir,
          mcpServers: [],
        });
        this.agentSessionId = loadId;
        this.began = 'load';
      } catch (err) {
        // A session the agent no longer has: a new one, and the reason on the screen.
        this.write(
          `gc: session/load of ${loadId} refused (${(err as Error).message}); a new ACP session\n`,
          'gc',
        );
      }
    }
    if (!this.agentSessionId) await this.newSession(workDir);
    this.lastActivity = Date.now();
    this.conversation.endTurn();
    this.newLine();
    this.changed();
    this.pump();
  }

  private async newSession(workDir: string): Promise<void> {
    const init = this.init!;
    try {
      const created = await this.conn.agent.request(methods.agent.session.new, {
        cwd: workDir,
        mcpServers: [],
      });
      this.agentSessionId = created.sessionId;
      this.began = 'new';
    } catch (err) {
      const agentName = init.agentInfo?.title ?? init.agentInfo?.name ?? 'the agent';
      const hints = (init.authMethods ?? []).map((m) => m.description ?? m.name).filter(Boolean);
      const code = err instanceof RequestError ? ` (${err.code})` : '';
      throw new Error(
        `${agentName} refused session/new${code}: ${(err as Error).message}` +
          (hints.length > 0 ? `; it may need a login: ${hints.join('; ')}` : ''),
        { cause: err },
      );
    }
  }

  /** Ends the session for a protocol violation: the error is shown and the process stopped. */
  async fail(reason: string): Promise<void> {
    if (this.error || !this.running) return;
    this.error = reason;
    this.write(`gc: ACP session error: ${reason}\n`, 'gc');
    this.conn.close(new Error(reason));
    await this.stop();
  }

  async stop(): Promise<void> {
    const pid = this.proc.pid;
    if (pid !== undefined) {
      const pids = processTree(pid);
      if (pids.length > 0) await terminate(pids, pid, this.limits.stopGraceMs);
    }
    if (this.running) await this.exited;
  }

  // --- prompts, cancel, permissions ----------------------------------------------------------------------

  nudge(text: string): void {
    this.queue.push(text);
    this.pump();
  }

  private pump(): void {
    if (this.busy || !this.agentSessionId || !this.running) return;
    const text = this.queue.shift();
    if (text === undefined) return;
    this.busy = true;
    this.lastActivity = Date.now();
    this.newLine();
    this.lines.push(`❯ ${text}`);
    this.conversation.prompt(text);
    this.changed();
    const sessionId = this.agentSessionId;
    this.conn.agent
      .request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] })
      .catch((err: Error) => this.write(`gc: the prompt failed: ${err.message}\n`, 'gc'))
      .finally(() => {
        this.busy = false;
        this.conversation.endTurn();
        this.newLine();
        this.changed();
        this.pump();
      });
  }

  /** `session/cancel` of the turn in flight; open permission requests are answered `cancelled`. */
  async cancel(): Promise<void> {
    if (!this.busy || !this.agentSessionId || !this.running) return;
    for (const a of this.asked.splice(0)) a.answer({ outcome: { outcome: 'cancelled' } });
    await this.conn.agent.notify(methods.agent.session.cancel, { sessionId: this.agentSessionId });
  }

  private ask(params: {
    toolCall: { toolCallId: string; title?: string | null };
    options: PermissionOption[];
  }): Promise<RequestPermissionResponse> {
    const tool = params.toolCall.title ?? params.toolCall.toolCallId;
    return new Promise((answer) => {
      this.asked.push({
        interaction: {
          request_id: `acp-${params.toolCall.toolCallId}`,
          kind: 'approval',
          prompt: `Allow ${tool}?`,
          options: params.options.map((o) => o.name),
          metadata: { tool_name: tool, source: 'acp' },
        },
        options: params.options,
        answer,
      });
      this.write(`waiting for approval: ${params.options.map((o) => o.name).join(' | ')}\n`, 'gc');
    });
  }

  get pending(): PendingInteraction | undefined {
    return this.asked[0]?.interaction;
  }

  /** Answers the open request `requestId` with an action (approve, approve_always, deny) or an option id. */
  respond(requestId: string, action: string): boolean {
    const at = this.asked.findIndex((a) => a.interaction.request_id === requestId);
    if (at < 0) return false;
    const { options, answer } = this.asked[at]!;
    const kinds: Record<string, string[]> = {
      approve: ['allow_once', 'allow_always'],
      approve_always: ['allow_always', 'allow_once'],
      deny: ['reject_once', 'reject_always'],
    };
    const option =
      options.find((o) => o.optionId === action) ??
      (kinds[action] ?? []).map((k) => options.find((o) => o.kind === k)).find((o) => o !== undefined);
    if (!option) return false;
    this.asked.splice(at, 1);
    answer({ outcome: { outcome: 'selected', optionId: option.optionId } });
    this.changed();
    return true;
  }

  // --- rendering -----------------------------------------------------------------------------------------

  private fold(update: SessionUpdate): void {
    this.lastActivity = Date.now();
    this.conversation.fold(update);
    switch (update.sessionUpdate) {
      case 'user_message_chunk':
        // The history an agent replays on session/load: its prompts as typed ones.
        if (update.content.type !== 'text') break;
        if (this.partialKind !== 'user') this.write('❯ ', 'user');
        this.write(update.content.text, 'user');
        break;
      case 'agent_message_chunk':
      case 'agent_thought_chunk':
        if (update.content.type === 'text') this.write(update.content.text, update.sessionUpdate);
        break;
      case 'tool_call':
        this.write(`● ${update.title}()\n`, 'tool');
        break;
      case 'tool_call_update':
        if (update.status === 'completed' || update.status === 'failed')
          this.write(`  ⎿ ${update.title ?? update.toolCallId} ${update.status}\n`, 'tool');
        break;
      default:
        this.changed();
    }
  }

  /** Appends text of a kind; a change of kind starts a new line (a thought, then the answer). */
  private write(text: string, kind: string): void {
    if (kind !== this.partialKind) this.newLine();
    this.partialKind = kind;
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop() ?? '';
    this.lines.push(...parts);
    if (this.lines.length > this.limits.maxLines)
      this.lines.splice(0, this.lines.length - this.limits.maxLines);
    this.changed();
  }

  private newLine(): void {
    if (this.partial !== '') this.lines.push(this.partial);
    this.partial = '';
    this.partialKind = '';
  }

  /** What a terminal would show: the lines, and the prompt while the agent waits for input. */
  render(): string {
    const all = this.partial === '' ? [...this.lines] : [...this.lines, this.partial];
    if (this.running && this.agentSessionId && !this.busy && this.queue.length === 0) all.push('❯');
    return all.join('\n');
  }

  private changed(): void {
    this.events.emit('change');
  }
}
