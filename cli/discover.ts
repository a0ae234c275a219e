import { CliError } from './errors.ts';
import { connectableUrl, gcHome, pidAlive, readSupervisorRecord } from './home.ts';

/** The supervisor's default address (design.md: bind 127.0.0.1, port 8372). */
export const DEFAULT_API = 'http://127.0.0.1:8372';

export const DISCOVERY_FAILED =
  'could not auto-discover the supervisor API; start the supervisor with "gc supervisor start" or pass --api explicitly';

/** Where an API address came from, in the order discovery tries them. */
export type ApiSource = 'flag' | 'env' | 'supervisor.json' | 'default';

export interface ApiCandidate {
  url: string;
  source: ApiSource;
}

/** What discovery reads: the `--api` flag, the environment, and the running supervisor's record. */
export interface DiscoveryInputs {
  flag?: string | undefined;
  env: NodeJS.ProcessEnv;
  /** `$GC_HOME/supervisor.json`, when it names a live pid. */
  record?: { url: string } | undefined;
  /** The last resort; `DEFAULT_API` unless a test says otherwise. */
  fallback?: string;
}

/**
 * The addresses to try, best first: `--api`, `GC_API`, the live supervisor's recorded URL, then the default.
 * An explicit address (flag or env) is the only candidate: the user said where the API is, so falling back
 * elsewhere would hide their mistake. This is a pure function.
 */
export function apiCandidates(inputs: DiscoveryInputs): ApiCandidate[] {
  const flag = inputs.flag?.trim();
  if (flag) return [{ url: flag, source: 'flag' }];
  const env = inputs.env.GC_API?.trim();
  if (env) return [{ url: env, source: 'env' }];
  const out: ApiCandidate[] = [];
  if (inputs.record) out.push({ url: connectableUrl(inputs.record.url), source: 'supervisor.json' });
  const fallback = inputs.fallback ?? DEFAULT_API;
  if (!out.some((c) => c.url === fallback)) out.push({ url: fallback, source: 'default' });
  return out;
}

/** Probes `GET /health`; true when it answers 2xx within the time limit. */
async function answers(url: string, timeoutMs: number): Promise<boolean> {
  try {
    const res = await fetch(`${url.replace(/\/+$/, '')}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * Finds the API base URL. An explicit `--api`/`GC_API` is returned as given (not probed: the first real
 * request reports an unreachable address precisely). Otherwise the recorded supervisor (when its pid is
 * alive) and then the default address are probed on `/health`.
 *
 * Effects: reads `$GC_HOME/supervisor.json`, probes pids and makes HTTP requests.
 * @throws CliError with the discovery message when nothing answers.
 */
export async function discoverApi(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  fallback: string = DEFAULT_API,
): Promise<string> {
  const rec = readSupervisorRecord(gcHome(env));
  const record = rec && pidAlive(rec.pid) ? rec : undefined;
  const candidates = apiCandidates({ flag, env, record, fallback });
  const first = candidates[0]!;
  if (first.source === 'flag' || first.source === 'env') return validUrl(first.url, first.source);
  // A recorded supervisor whose pid is alive is almost surely the one: it gets time to answer on a busy
  // machine; the default address is only a guess and is given up on quickly.
  for (const c of candidates)
    if (await answers(c.url, c.source === 'supervisor.json' ? 10_000 : 2000)) return c.url;
  throw new CliError(DISCOVERY_FAILED);
}

function validUrl(url: string, source: ApiSource): string {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new CliError(`invalid ${source === 'flag' ? '--api' : 'GC_API'} "${url}": expected an http(s) URL`);
  }
  return url.replace(/\/+$/, '');
}
