import type { ErrorDetail, ErrorModel } from '../schemas/problem.ts';
import { errorText } from './errors.ts';

/**
 * An RFC 9457 Problem Details body (schemas/ ErrorModel; `detail` starts with a code prefix) as read off
 * the wire: any field may be missing, since any JSON object an error status carries (a proxy's, say) is
 * read as one rather than thrown away.
 */
export type Problem = Partial<Omit<ErrorModel, 'errors'>> & { errors?: Partial<ErrorDetail>[] };

/** The API answered with an error status; `detail` is what to show the user. */
export class ApiError extends Error {
  readonly status: number;
  readonly problem: Problem | undefined;
  constructor(status: number, problem: Problem | undefined, fallback: string) {
    super(problem ? problemText(problem, status) : fallback);
    this.name = 'ApiError';
    this.status = status;
    this.problem = problem;
  }
  /** The `detail` code prefix (`not_found`, `conflict`, …), if the detail has one. */
  get code(): string | undefined {
    return /^([a-z_]+):/.exec(this.problem?.detail ?? '')?.[1];
  }
}

/** The API could not be reached (connection refused, reset, DNS, timeout). */
export class TransportError extends Error {
  constructor(url: string, cause: unknown) {
    super(`cannot reach ${url}: ${errorText(cause)}`, { cause });
    this.name = 'TransportError';
  }
}

/** A Problem's human text: its detail, plus the failed fields of a validation error. Pure. */
export function problemText(p: Problem, status: number): string {
  const base = p.detail || p.title || `HTTP ${status}`;
  const fields = (p.errors ?? [])
    .map((e) => [e.location, e.message].filter(Boolean).join(': '))
    .filter((s) => s !== '');
  return fields.length > 0 ? `${base} (${fields.join('; ')})` : base;
}

/** Reads an error response into an `ApiError`, using its Problem Details body when it has one. */
export async function apiErrorFrom(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  let problem: Problem | undefined;
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) problem = body;
  } catch {
    // Not JSON (a proxy's HTML page, say): fall back to the status line.
  }
  const fallback =
    `HTTP ${res.status} ${res.statusText}`.trim() + (text && !problem ? `: ${text.slice(0, 200)}` : '');
  return new ApiError(res.status, problem, fallback);
}

type Query = Record<string, string | number | undefined>;

/**
 * A small client of the supervisor's HTTP API. Every mutation carries `X-GC-Request: gc` (the API's
 * anti-CSRF header); every error status becomes an `ApiError` with the Problem's detail, every network
 * failure a `TransportError`.
 */
export class ApiClient {
  readonly base: string;
  constructor(base: string) {
    this.base = base.replace(/\/+$/, '');
  }

  /** The absolute URL of an API path with the defined query parameters. Pure. */
  url(path: string, query: Query = {}): string {
    const u = new URL(this.base + path);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  /** Sends a request; resolves with any response (ok or not); throws `TransportError` when unreachable. */
  async fetch(path: string, init: RequestInit & { query?: Query } = {}): Promise<Response> {
    const url = this.url(path, init.query);
    // A supervisor with GC_API_TOKEN set answers 401 to anything without it (reads and streams too).
    const token = process.env.GC_API_TOKEN?.trim();
    if (token) {
      const headers = new Headers(init.headers);
      if (!headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
      init = { ...init, headers };
    }
    try {
      return await fetch(url, init);
    } catch (err) {
      if (init.signal?.aborted) throw err;
      throw new TransportError(url, err);
    }
  }

  /** GETs a JSON body; resolves with the body and the response headers. Throws `ApiError` on an error status. */
  async getJson<T>(
    path: string,
    query: Query = {},
    signal?: AbortSignal,
  ): Promise<{ body: T; headers: Headers }> {
    const res = await this.fetch(path, { query, headers: { accept: 'application/json' }, signal });
    if (!res.ok) throw await apiErrorFrom(res);
    return { body: (await res.json()) as T, headers: res.headers };
  }

  /** POSTs a JSON body (or none) as a mutation; resolves with the parsed response body. */
  async postJson<T>(path: string, body?: unknown): Promise<{ status: number; body: T }> {
    return this.mutateJson<T>('POST', path, body);
  }

  /** PATCHes a JSON body as a mutation; resolves with the parsed response body. */
  async patchJson<T>(path: string, body: unknown): Promise<{ status: number; body: T }> {
    return this.mutateJson<T>('PATCH', path, body);
  }

  private async mutateJson<T>(
    method: 'POST' | 'PATCH',
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }> {
    const headers: Record<string, string> = { accept: 'application/json', 'x-gc-request': 'gc' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await this.fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw await apiErrorFrom(res);
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  }
}
