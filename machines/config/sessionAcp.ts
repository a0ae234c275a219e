/**
 * `[session.acp]`, upstream's ACP runtime settings: `handshake_timeout` (default 30s), `nudge_busy_timeout`
 * (60s) and `output_buffer_lines` (1000). The ACP runtime applies the handshake deadline and the lines kept;
 * prompts queue while a turn runs instead of waiting for idle, so `nudge_busy_timeout` is read and warned
 * about. Upstream falls back to the default for a value it cannot parse; so does the runtime here, and
 * /config/validate says so. Pure.
 */
import { CITY_FILE, tableOf, type Table } from './layers.ts';
import type { ConfigProblem } from './problems.ts';

export interface AcpSessionSettings {
  handshakeTimeoutMs: number;
  outputBufferLines: number;
  nudgeBusyTimeoutMs: number;
}

export const ACP_DEFAULTS: AcpSessionSettings = {
  handshakeTimeoutMs: 30_000,
  outputBufferLines: 1000,
  nudgeBusyTimeoutMs: 60_000,
};

const KEYS = ['handshake_timeout', 'nudge_busy_timeout', 'output_buffer_lines'];

/** Go's time.ParseDuration for the units a config uses (`30s`, `1m30s`, `500ms`); undefined otherwise. */
export function goDuration(text: string): number | undefined {
  const unit: Record<string, number> = {
    ns: 1e-6,
    us: 1e-3,
    µs: 1e-3,
    ms: 1,
    s: 1000,
    m: 60_000,
    h: 3_600_000,
  };
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) return undefined;
  return Math.round(parts.reduce((sum, p) => sum + Number(p[1]) * unit[p[2]!]!, 0));
}

/** The settings a `[session.acp]` table gives, each key's default where it is missing or bad. */
export function acpSessionSettings(table: Readonly<Record<string, unknown>> | undefined): AcpSessionSettings {
  const t = table ?? {};
  const duration = (v: unknown): number | undefined => {
    const ms = typeof v === 'string' ? goDuration(v) : undefined;
    return ms !== undefined && ms > 0 ? ms : undefined;
  };
  const lines = t.output_buffer_lines;
  return {
    handshakeTimeoutMs: duration(t.handshake_timeout) ?? ACP_DEFAULTS.handshakeTimeoutMs,
    nudgeBusyTimeoutMs: duration(t.nudge_busy_timeout) ?? ACP_DEFAULTS.nudgeBusyTimeoutMs,
    outputBufferLines:
      (typeof lines === 'number' || typeof lines === 'bigint') && Number(lines) > 0
        ? Number(lines)
        : ACP_DEFAULTS.outputBufferLines,
  };
}

/** The /config/validate problems of a city document's `[session.acp]`. */
export function sessionAcpProblems(
  doc: Table,
  sources: Record<string, { file?: string | undefined }> = {},
): ConfigProblem[] {
  const acp = tableOf(tableOf(doc.session).acp);
  const out: ConfigProblem[] = [];
  const at = (key: string) => ({
    file: sources[`session.acp.${key}`]?.file ?? CITY_FILE,
    field: `session.acp.${key}`,
  });
  for (const [key, value] of Object.entries(acp)) {
    if (!KEYS.includes(key)) {
      out.push({ severity: 'warning', ...at(key), message: `unknown key (known: ${KEYS.join(', ')})` });
      continue;
    }
    if (key === 'output_buffer_lines') {
      const ok = (typeof value === 'number' || typeof value === 'bigint') && Number(value) > 0;
      if (!ok)
        out.push({ severity: 'warning', ...at(key), message: 'expected a positive integer: 1000 is used' });
      continue;
    }
    if (typeof value !== 'string' || goDuration(value) === undefined || goDuration(value) === 0) {
      const fallback = key === 'handshake_timeout' ? '30s' : '60s';
      out.push({
        severity: 'warning',
        ...at(key),
        message: `expected a duration such as "30s": ${fallback} is used`,
      });
      continue;
    }
    if (key === 'nudge_busy_timeout')
      out.push({
        severity: 'warning',
        ...at(key),
        message: 'read but not applied: prompts queue while a turn runs and go when it ends',
      });
  }
  return out;
}

/** The builtin providers that speak ACP (upstream's claude and opencode, and our mock agent). */
export const ACP_BUILTINS: ReadonlySet<string> = new Set(['claude', 'opencode', 'mock']);

/**
 * Whether the provider `name` declares `supports_acp` once its `base` chain is flattened (`spec` is that
 * flattened table): its own key wins, else the builtin at the root of its chain.
 */
export function providerSpeaksAcp(
  name: string,
  spec: Table | undefined,
  providers: Record<string, Table>,
): boolean {
  if (!spec) return false;
  if (typeof spec.supports_acp === 'boolean') return spec.supports_acp;
  let root = name;
  const seen = new Set<string>();
  while (typeof providers[root]?.base === 'string' && !seen.has(root)) {
    seen.add(root);
    root = providers[root]!.base as string;
  }
  return ACP_BUILTINS.has(root);
}

/**
 * The problem of an agent's `session` key: only `acp` is a transport, and it needs a provider that declares
 * `supports_acp = true` (upstream refuses such an agent when its session starts; here the config says so).
 */
export function agentSessionProblem(
  agent: Table,
  provider: { name: string; spec: Table | undefined } | undefined,
  providers: Record<string, Table>,
): string | undefined {
  const asked = agent.session;
  if (asked === undefined || asked === '') return undefined;
  if (asked !== 'acp') return `expected "acp" (or no session key), not ${JSON.stringify(asked)}`;
  if (!provider)
    return 'session = "acp" needs a provider with supports_acp = true, and the agent has no provider';
  if (!providerSpeaksAcp(provider.name, provider.spec, providers))
    return `session = "acp" but provider "${provider.name}" does not support ACP (set supports_acp = true on the provider)`;
  return undefined;
}
