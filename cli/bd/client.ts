import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { BdError } from './errors.ts';
import { exchange, type WireAnswer } from './wire.ts';

/**
 * bd's way to the city's bead store: the supervisor's HTTP API over ./wire.ts (no fetch, no node:http,
 * no oclif: bd runs on every agent turn and its start-up is the cost that counts). The address is
 * `GC_API`, else the running supervisor's `$GC_HOME/supervisor.json`, else the default; the city is
 * `GC_CITY` (a name, as sessions get it), else the registered city whose directory holds the working
 * directory.
 */

const DEFAULT_API = 'http://127.0.0.1:8372';

export interface Reply {
  status: number;
  body: unknown;
}

/** The API's Problem Details `detail` without its code prefix (`not_found: bead x` → `bead x`). Pure. */
function problemMessage(body: unknown, status: number): { code: string | undefined; text: string } {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail !== 'string') return { code: undefined, text: `HTTP ${status}` };
  const m = /^([a-z_]+): (.*)$/s.exec(detail);
  return m ? { code: m[1], text: m[2]! } : { code: undefined, text: detail };
}

/** An error status from the API, carrying its code (`not_found`, `conflict`, …). */
export class ApiFailure extends BdError {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    text: string,
  ) {
    super(text);
  }
}

function apiBase(env: NodeJS.ProcessEnv): string {
  const explicit = env.GC_API?.trim();
  if (explicit) return explicit.replace(/\/+$/, '');
  const home = env.GC_HOME?.trim() || join(homedir(), '.gc');
  try {
    const rec = JSON.parse(readFileSync(join(home, 'supervisor.json'), 'utf8')) as { url?: unknown };
    if (typeof rec.url === 'string') {
      const u = new URL(rec.url);
      if (u.hostname === '0.0.0.0') u.hostname = '127.0.0.1';
      return u.toString().replace(/\/+$/, '');
    }
  } catch {
    // No running supervisor recorded: the default address.
  }
  return DEFAULT_API;
}

export class BdClient {
  readonly base: string;
  #city: Promise<string> | undefined;
  readonly #env: NodeJS.ProcessEnv;
  readonly #cwd: string;

  constructor(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()) {
    this.#env = env;
    this.#cwd = cwd;
    this.base = apiBase(env);
  }

  /** One JSON request; error statuses become ApiFailure, an unreachable API one line naming it. */
  async call(method: string, path: string, body?: unknown): Promise<Reply> {
    const url = new URL(this.base + path);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (method !== 'GET') headers['x-gc-request'] = 'bd';
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const token = this.#env.GC_API_TOKEN?.trim();
    if (token) headers.authorization = `Bearer ${token}`;
    let answer: WireAnswer;
    try {
      answer = await exchange(url, method, headers, payload);
    } catch (err) {
      throw new BdError(`cannot reach the supervisor at ${this.base}: ${(err as Error).message}`);
    }
    let parsed: unknown = undefined;
    try {
      parsed = answer.text ? JSON.parse(answer.text) : undefined;
    } catch {
      parsed = answer.text;
    }
    if (answer.status >= 400) {
      const p = problemMessage(parsed, answer.status);
      throw new ApiFailure(answer.status, p.code, p.text);
    }
    return { status: answer.status, body: parsed };
  }

  /** The city's API path prefix, `/v0/city/<name>`, resolving the city once. */
  async cityPath(): Promise<string> {
    // The promise is kept, so that concurrent calls resolve the city once.
    this.#city ??= this.#resolveCity();
    return `/v0/city/${encodeURIComponent(await this.#city)}`;
  }

  async #resolveCity(): Promise<string> {
    const named = this.#env.GC_CITY?.trim();
    if (named && !named.includes('/')) return named;
    const start = named || this.#env.GC_CITY_PATH?.trim() || this.#env.GC_DIR?.trim() || this.#cwd;
    let root: string | undefined;
    for (let dir = resolve(this.#cwd, start); ; dir = dirname(dir)) {
      if (existsSync(join(dir, 'city.toml'))) {
        root = dir;
        break;
      }
      if (dirname(dir) === dir) break;
    }
    if (!root) throw new BdError('not in a city (set GC_CITY or run inside a city directory)');
    const { body } = await this.call('GET', '/v0/cities');
    const items = (body as { items?: { name: string; path: string }[] }).items ?? [];
    const hit = items.find((c) => resolve(c.path) === root);
    if (!hit) throw new BdError(`no city registered at ${root}`);
    return hit.name;
  }
}
