import { join } from 'node:path';
import { BadRequestError } from '../runtime/errors.ts';
import type { HostProbe } from './hostProbe.ts';
import { BUILTIN_PROVIDERS } from '../config/index.ts';

/** Probe outcomes, as upstream reports them. */
export type ProbeStatus =
  'configured' | 'needs_auth' | 'not_installed' | 'invalid_configuration' | 'probe_error';

/** One probed item (upstream ReadinessItem). */
export interface ReadinessItem {
  name: string;
  kind: 'provider' | 'tool';
  display_name: string;
  status: ProbeStatus;
  detail?: string;
}

interface ProbeResult {
  status: ProbeStatus;
  detail?: string;
}

interface ProbeSpec {
  kind: 'provider' | 'tool';
  displayName: string;
  probe(host: HostProbe): Promise<ProbeResult>;
}

/** Upstream's defaults: the providers with onboarding probes, plus the GitHub CLI for `readiness`. */
export const DEFAULT_PROVIDER_ITEMS = ['claude', 'codex', 'gemini'] as const;
export const DEFAULT_READINESS_ITEMS = ['claude', 'codex', 'gemini', 'github_cli'] as const;
/** Probe results are reused this long unless `fresh` is asked for. */
export const PROBE_CACHE_TTL_MS = 2000;

const notInstalled = (bin: string): ProbeResult => ({
  status: 'not_installed',
  detail: `${bin} executable not found in probe PATH`,
});

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const field = (v: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>(
    (o, k) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined),
    v,
  );

async function probeClaude(host: HostProbe): Promise<ProbeResult> {
  const bin = await host.which('claude');
  if (!bin) return notInstalled('claude');
  const { stdout } = await host.run(bin, ['auth', 'status', '--json'], 5000);
  if (stdout.trim() === '')
    return { status: 'probe_error', detail: 'claude auth status failed before returning JSON' };
  const status = parseJson(stdout);
  if (status === undefined) return { status: 'probe_error', detail: 'invalid JSON from claude auth status' };
  if (field(status, 'loggedIn') !== true) {
    return { status: 'needs_auth', detail: 'claude is installed but not logged in' };
  }
  const method = field(status, 'authMethod');
  if ((method === 'claude.ai' || method === 'oauth_token') && field(status, 'apiProvider') === 'firstParty') {
    return { status: 'configured' };
  }
  return {
    status: 'invalid_configuration',
    detail: 'claude must use claude.ai or oauth_token first-party auth',
  };
}

async function probeCodex(host: HostProbe): Promise<ProbeResult> {
  if (!(await host.which('codex'))) return notInstalled('codex');
  const text = await host.readText(join(host.home, '.codex', 'auth.json'));
  if (text === undefined) return { status: 'needs_auth', detail: 'missing ~/.codex/auth.json' };
  const auth = parseJson(text);
  if (auth === undefined) return { status: 'probe_error', detail: 'invalid JSON in ~/.codex/auth.json' };
  const modeField = field(auth, 'auth_mode');
  const mode = typeof modeField === 'string' ? modeField.trim().toLowerCase() : '';
  if (mode === 'chatgpt') {
    const tokens = field(auth, 'tokens');
    const stored = tokens !== null && typeof tokens === 'object' && Object.keys(tokens).length > 0;
    return stored
      ? { status: 'configured' }
      : { status: 'needs_auth', detail: 'ChatGPT auth mode is selected but no Codex tokens are stored' };
  }
  if (mode === '' || mode === 'none') return { status: 'needs_auth', detail: 'Codex auth mode is unset' };
  if (mode === 'api_key' || mode === 'api-key' || mode === 'apikey') {
    return {
      status: 'invalid_configuration',
      detail: 'ChatGPT auth is required; API key auth is unsupported for onboarding',
    };
  }
  return {
    status: 'invalid_configuration',
    detail: `unsupported Codex auth mode ${JSON.stringify(modeField)}`,
  };
}

async function probeGemini(host: HostProbe): Promise<ProbeResult> {
  if (!(await host.which('gemini'))) return notInstalled('gemini');
  const text = await host.readText(join(host.home, '.gemini', 'settings.json'));
  if (text === undefined) return { status: 'needs_auth', detail: 'missing ~/.gemini/settings.json' };
  const settings = parseJson(text);
  if (settings === undefined)
    return { status: 'probe_error', detail: 'invalid JSON in ~/.gemini/settings.json' };
  const selected = field(settings, 'security', 'auth', 'selectedType');
  const type = typeof selected === 'string' ? selected.trim() : '';
  if (type === '') return { status: 'needs_auth', detail: 'Gemini selected auth type is unset' };
  if (type === 'oauth-personal') {
    const creds = await host.readText(join(host.home, '.gemini', 'oauth_creds.json'));
    if (creds === undefined) return { status: 'needs_auth', detail: 'missing ~/.gemini/oauth_creds.json' };
    const payload = parseJson(creds);
    if (payload === undefined)
      return { status: 'probe_error', detail: 'invalid JSON in ~/.gemini/oauth_creds.json' };
    const refresh = field(payload, 'refresh_token');
    return typeof refresh === 'string' && refresh.trim() !== ''
      ? { status: 'configured' }
      : { status: 'needs_auth', detail: 'Gemini OAuth credentials are missing a refresh token' };
  }
  const known = ['gemini-api-key', 'vertex-ai', 'compute-default-credentials'].includes(type);
  return {
    status: 'invalid_configuration',
    detail: `${known ? 'unsupported' : 'unknown'} Gemini auth type ${JSON.stringify(type)}`,
  };
}

async function probeGitHubCli(host: HostProbe): Promise<ProbeResult> {
  const bin = await host.which('gh');
  if (!bin) return notInstalled('gh');
  const tokenVars = ['GH_TOKEN', 'GITHUB_TOKEN', 'GH_ENTERPRISE_TOKEN', 'GITHUB_ENTERPRISE_TOKEN'];
  if (tokenVars.some((v) => (host.env(v) ?? '').trim() !== '')) return { status: 'configured' };
  const configDir =
    host.env('GH_CONFIG_DIR') ?? join(host.env('XDG_CONFIG_HOME') ?? join(host.home, '.config'), 'gh');
  const hosts = await host.readText(join(configDir, 'hosts.yml'));
  if (hosts !== undefined && /^\s*(oauth_token|token):\s*\S+/m.test(hosts)) return { status: 'configured' };
  const { code } = await host.run(bin, ['auth', 'status'], 2000);
  return code === 0
    ? { status: 'configured' }
    : { status: 'needs_auth', detail: 'gh is installed but not authenticated' };
}

const SPECS: Readonly<Record<string, ProbeSpec>> = {
  claude: { kind: 'provider', displayName: 'Claude Code', probe: probeClaude },
  codex: { kind: 'provider', displayName: 'Codex', probe: probeCodex },
  gemini: { kind: 'provider', displayName: 'Gemini CLI', probe: probeGemini },
  github_cli: { kind: 'tool', displayName: 'GitHub CLI', probe: probeGitHubCli },
};

/**
 * Splits a comma-separated query value into known item names, de-duplicated, in order; blank means the
 * defaults. Pure.
 * @throws BadRequestError (400 `invalid: unsupported <param> value "<x>"`) for an unknown name.
 */
export function parseItems(
  raw: string | undefined,
  param: string,
  defaults: readonly string[],
  allowed: readonly string[],
): string[] {
  if (raw === undefined || raw.trim() === '') return [...defaults];
  const out: string[] = [];
  for (const part of raw.split(',')) {
    const name = part.trim();
    if (!allowed.includes(name))
      throw new BadRequestError(`unsupported ${param} value ${JSON.stringify(name)}`);
    if (!out.includes(name)) out.push(name);
  }
  return out;
}

/**
 * Probes providers and tools on the host (upstream's onboarding readiness), caching each result for
 * `PROBE_CACHE_TTL_MS`. Effects: looks up executables, reads credential files, may run `claude auth status`
 * or `gh auth status`.
 */
export class Readiness {
  readonly #cache = new Map<string, { result: ProbeResult; expires: number }>();

  constructor(
    readonly host: HostProbe,
    private readonly now: () => number = Date.now,
  ) {}

  /** `GET …/readiness`: `items` is the raw query value. Throws BadRequestError for unknown items. */
  async items(raw: string | undefined, fresh: boolean): Promise<Record<string, ReadinessItem>> {
    const names = parseItems(raw, 'items', DEFAULT_READINESS_ITEMS, Object.keys(SPECS));
    const out: Record<string, ReadinessItem> = {};
    await Promise.all(
      names.map(async (name) => {
        const spec = SPECS[name]!;
        const result = await this.#probe(name, fresh);
        out[name] = { name, kind: spec.kind, display_name: spec.displayName, ...result };
      }),
    );
    return out;
  }

  /** `GET …/provider-readiness`: `providers` is the raw query value. Throws BadRequestError for unknown ones. */
  async providers(
    raw: string | undefined,
    fresh: boolean,
  ): Promise<Record<string, { display_name: string; status: ProbeStatus; detail?: string }>> {
    const names = parseItems(raw, 'providers', DEFAULT_PROVIDER_ITEMS, [...DEFAULT_PROVIDER_ITEMS]);
    const items = await this.items(names.join(','), fresh);
    const out: Record<string, { display_name: string; status: ProbeStatus; detail?: string }> = {};
    for (const name of names) {
      const { display_name, status, detail } = items[name]!;
      out[name] = detail === undefined ? { display_name, status } : { display_name, status, detail };
    }
    return out;
  }

  /**
   * Why a city cannot use `provider` on this host, or undefined when it can: its executable must be
   * installed (credentials are the session's concern, as upstream skips them on create).
   */
  async providerBlocker(provider: string): Promise<string | undefined> {
    const spec = BUILTIN_PROVIDERS[provider];
    if (!spec) return `unknown provider ${JSON.stringify(provider)}`;
    return (await this.host.which(spec.binary))
      ? undefined
      : `${spec.binary} executable not found in probe PATH`;
  }

  async #probe(name: string, fresh: boolean): Promise<ProbeResult> {
    const hit = this.#cache.get(name);
    if (!fresh && hit && hit.expires > this.now()) return hit.result;
    let result: ProbeResult;
    try {
      result = await SPECS[name]!.probe(this.host);
    } catch (err) {
      result = { status: 'probe_error', detail: (err as Error).message };
    }
    this.#cache.set(name, { result, expires: this.now() + PROBE_CACHE_TTL_MS });
    return result;
  }
}
