/**
 * A city's runtime when some of its agents speak ACP (`session = "acp"`) and the others run on the city's
 * runtime (tmux, subprocess, exec): a start goes where its config's transport says, and every later call of
 * that session follows it. One observe covers both. Sessions it does not know (a restart: ACP sessions end
 * with the supervisor) belong to the city's runtime.
 */
import { AcpProvider } from './acpProvider.ts';
import type { PendingInteraction } from '../pending/detect.ts';
import type { LogEntry } from '../transcript/logEntry.ts';
import { readPending } from '../pending/readPending.ts';
import { APPROVAL_KEYS } from '../pending/patterns.ts';
import type { Observation, RuntimeCapabilities, RuntimeProvider, StartConfig } from './provider.ts';

export class RoutingProvider implements RuntimeProvider {
  readonly kind: string;
  readonly capabilities: RuntimeCapabilities;
  private acpProvider: AcpProvider | undefined;
  private readonly onAcp = new Set<string>();

  constructor(
    readonly base: RuntimeProvider,
    private readonly makeAcp: () => AcpProvider = () => new AcpProvider(),
  ) {
    this.kind = base.kind;
    this.capabilities = base.capabilities;
  }

  private get acp(): AcpProvider {
    this.acpProvider ??= this.makeAcp();
    return this.acpProvider;
  }

  private of(name: string): RuntimeProvider {
    return this.onAcp.has(name) ? this.acp : this.base;
  }

  async start(name: string, cfg: StartConfig, signal?: AbortSignal): Promise<void> {
    if (cfg.transport === 'acp') {
      this.onAcp.add(name);
      return this.acp.start(name, cfg, signal);
    }
    this.onAcp.delete(name);
    return this.base.start(name, cfg, signal);
  }

  async stop(name: string): Promise<void> {
    await this.of(name).stop(name);
  }

  interrupt(name: string): Promise<void> {
    return this.of(name).interrupt(name);
  }

  async observe(prefix?: string): Promise<Map<string, Observation>> {
    const seen = await this.base.observe(prefix);
    if (this.acpProvider) for (const [name, o] of await this.acpProvider.observe(prefix)) seen.set(name, o);
    return seen;
  }

  nudge(name: string, text: string): Promise<void> {
    return this.of(name).nudge(name, text);
  }

  sendKeys(name: string, ...keys: string[]): Promise<void> {
    return this.of(name).sendKeys(name, ...keys);
  }

  peek(name: string, lines: number): Promise<string> {
    return this.of(name).peek(name, lines);
  }

  getMeta(name: string, key: string): Promise<string> {
    return this.of(name).getMeta(name, key);
  }

  setMeta(name: string, key: string, value: string): Promise<void> {
    return this.of(name).setMeta(name, key, value);
  }

  removeMeta(name: string, key: string): Promise<void> {
    return this.of(name).removeMeta(name, key);
  }

  attachCommand(name: string): string[] {
    return this.of(name).attachCommand(name);
  }

  /** The protocol's request on ACP, the screen's prompt elsewhere. */
  pending(name: string): Promise<PendingInteraction | undefined> {
    return readPending(this.of(name), name);
  }

  async respond(name: string, requestId: string, option: string): Promise<void> {
    const provider = this.of(name);
    if (provider.respond) return provider.respond(name, requestId, option);
    await provider.sendKeys(name, APPROVAL_KEYS[option] ?? option);
  }

  acpSession(name: string): { id: string; began: 'new' | 'load' } | undefined {
    return this.onAcp.has(name) ? this.acp.acpSession(name) : undefined;
  }

  conversation(name: string, opts: { complete?: boolean } = {}): LogEntry[] | undefined {
    return this.onAcp.has(name) ? this.acp.conversation(name, opts) : this.base.conversation?.(name, opts);
  }

  async close(): Promise<void> {
    await Promise.all([this.base.close(), this.acpProvider?.close()]);
  }
}
