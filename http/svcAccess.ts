import { isIP } from 'node:net';

/** Who asks the workspace-service proxy for what. */
export interface SvcRequest {
  method: string;
  /** The peer's address (`req.socket.remoteAddress`). */
  remoteAddress: string | undefined;
  /** The `X-GC-Request` header: marks a request made through the supervisor's own clients. */
  marker: string | string[] | undefined;
}

/** Why a proxied request is refused: the status and Problem Details `detail`. */
export interface SvcRefusal {
  status: 403 | 404;
  detail: string;
}

const MUTATIONS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** True for a loopback peer (127.0.0.0/8, ::1, and IPv4-mapped loopback). Pure. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const host = address.replace(/^::ffff:/i, '');
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/**
 * Upstream's rules for a private (not `direct`-published) service: it is reached only from loopback or by
 * a request carrying `X-GC-Request` (else 404, as if absent); a mutation needs that header (403 csrf); a
 * read-only supervisor refuses its mutations (403 read_only). A `direct` service applies its own rules.
 * Returns undefined when the request may pass. Pure.
 */
export function svcRefusal(publishMode: string, req: SvcRequest, readOnly: boolean): SvcRefusal | undefined {
  if (publishMode === 'direct') return undefined;
  const mutation = MUTATIONS.has(req.method.toUpperCase());
  if (readOnly && mutation)
    return { status: 403, detail: 'read_only: service mutations are disabled for unpublished services' };
  const marked = typeof req.marker === 'string' ? req.marker.trim() !== '' : Array.isArray(req.marker);
  if (!isLoopback(req.remoteAddress) && !marked)
    return { status: 404, detail: 'not_found: service route not found' };
  if (mutation && !marked)
    return {
      status: 403,
      detail: 'csrf: X-GC-Request header required on private service mutation endpoints',
    };
  return undefined;
}

/** `/v0/city/<city>/svc/<name><subpath>?<query>` taken apart (undefined: not a service path). Pure. */
export function svcTarget(rawUrl: string): { city: string; service: string; path: string } | undefined {
  const m = /^\/v0\/city\/([^/?]+)\/svc\/([^/?]*)([^?]*)(\?.*)?$/.exec(rawUrl);
  if (!m) return undefined;
  let city: string;
  let service: string;
  try {
    city = decodeURIComponent(m[1]!);
    service = decodeURIComponent(m[2]!);
  } catch {
    return undefined;
  }
  const sub = m[3] === '' ? '/' : m[3]!;
  return { city, service, path: sub + (m[4] ?? '') };
}

/**
 * Takes the supervisor's API token out of a request before it goes to a service: the `Authorization` header
 * that carries it, the `access_token` query parameter and the `gc_token` cookie (a service must never see
 * the supervisor's credential). Mutates `headers`; returns the path without the parameter. Pure but for
 * `headers`.
 */
export function withoutSupervisorToken(
  headers: Record<string, string | string[] | undefined>,
  path: string,
  token: string | undefined,
): string {
  if (token === undefined) return path;
  const auth = headers.authorization;
  if (typeof auth === 'string' && /^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1] === token)
    delete headers.authorization;
  const cookie = headers.cookie;
  if (typeof cookie === 'string') {
    const kept = cookie
      .split(';')
      .filter((part) => part.split('=')[0]!.trim() !== 'gc_token')
      .join(';')
      .trim();
    if (kept === '') delete headers.cookie;
    else headers.cookie = kept;
  }
  const q = path.indexOf('?');
  if (q < 0) return path;
  const params = new URLSearchParams(path.slice(q + 1));
  if (!params.has('access_token')) return path;
  params.delete('access_token');
  const rest = params.toString();
  return path.slice(0, q) + (rest ? `?${rest}` : '');
}
