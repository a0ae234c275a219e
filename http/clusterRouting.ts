import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotOwnerError, UnavailableError } from '../actors/runtime/errors.ts';
import type { ClusterRouting } from '../actors/supervisor/cluster/clusterCoordinator.ts';
import { problem } from './problem.ts';
import { streamRegistry } from './sse/registry.ts';

/** Marks a request one supervisor forwarded to another: it is never forwarded a second time. */
export const FORWARDED_BY = 'x-gc-forwarded-by';
/** Names the owner's API URL on a 421 (and on forwarded answers, the supervisor that served them). */
export const CITY_OWNER = 'gc-city-owner';

const CITY_PATH = /^\/v0\/city\/([^/?]+)(\/[^?]*)?/;
// Served by every supervisor from JetStream (read replicas): the city's own event list and stream.
const REPLICA_READS = new Set(['/events', '/events/stream']);
// Not passed on either way: they describe one connection, not the request.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-encoding',
  'content-length',
  'proxy-connection',
]);
// Probes answer for this process itself, outage or not.
const ALWAYS_LOCAL = /^\/(health|v0\/readiness)(\?|$)/;

/**
 * Cluster routing, after authentication and the CSRF check: while the broker is unreachable every request
 * but the probes is a `503 journal_unavailable` problem and every open stream ends with an `event:
 * problem` frame (an outage is reported, never silence); a request for a city another supervisor owns
 * is forwarded there (body and answer streamed, SSE included) or, with forwarding off or on a request
 * already forwarded once, refused with `421 not_owner` naming the owner; a city with no owner right now
 * (failover) is a `503 no_owner` with Retry-After. Lists and streams of city events, the city list and
 * the supervisor's events are served here from JetStream for every city of the cluster.
 */
export function registerClusterRouting(app: FastifyInstance, owner: object, cluster: ClusterRouting): void {
  cluster.onConnection((up) => {
    if (up) return;
    const body = JSON.stringify(
      problem(503, 'journal_unavailable: this supervisor lost its connection to the NATS broker'),
    );
    for (const writer of streamRegistry(owner).writers()) {
      writer.send('problem', body);
      writer.close('ended');
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS' || ALWAYS_LOCAL.test(request.url)) return;
    if (!cluster.connected) {
      reply.header('Retry-After', '1');
      throw new UnavailableError(
        'this supervisor cannot reach the NATS broker; another supervisor of the cluster can serve you',
        'journal_unavailable',
      );
    }
    const m = CITY_PATH.exec(request.url);
    if (!m) return;
    const rest = m[2] ?? '';
    if (request.method === 'GET' && REPLICA_READS.has(rest)) return;
    let city: string;
    try {
      city = decodeURIComponent(m[1]!);
    } catch {
      return; // the router's own problem answers it
    }
    const route = cluster.route(city);
    if (!route || route.kind === 'me') return;
    if (route.kind === 'none') {
      reply.header('Retry-After', '1');
      throw new UnavailableError(`city ${city} has no owner right now (failover in progress)`, 'no_owner');
    }
    if (!cluster.forward || request.headers[FORWARDED_BY] !== undefined) {
      reply.header(CITY_OWNER, route.owner.url);
      throw new NotOwnerError(city, route.owner);
    }
    return forward(request, reply, route.owner.url, cluster.me.id);
  });
}

/**
 * Passes `request` to the same path at `base` and streams the answer back as it comes (an SSE stream
 * stays a stream). The client's credentials go along: one token serves the whole cluster.
 * @throws UnavailableError (503 owner_unreachable) when the owner does not answer; nothing was sent back.
 */
async function forward(
  request: FastifyRequest,
  reply: FastifyReply,
  base: string,
  me: string,
): Promise<FastifyReply> {
  const headers = new Headers();
  for (const [k, v] of Object.entries(request.headers)) {
    if (v === undefined || HOP_BY_HOP.has(k)) continue;
    headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  }
  headers.set(FORWARDED_BY, me);
  const length = request.headers['content-length'];
  const hasBody =
    request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  const abort = new AbortController();
  reply.raw.once('close', () => abort.abort());
  let res: Response;
  try {
    res = await fetch(base.replace(/\/+$/, '') + request.url, {
      method: request.method,
      headers,
      signal: abort.signal,
      redirect: 'manual',
      ...(hasBody ? { body: request.raw, duplex: 'half' } : {}),
    });
  } catch (err) {
    throw new UnavailableError(`the owner of this city at ${base} did not answer`, 'owner_unreachable', {
      cause: err,
    });
  }
  reply.hijack();
  const out = reply.raw;
  const answer: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (!HOP_BY_HOP.has(k)) answer[k] = v;
  });
  answer[CITY_OWNER] = base;
  out.writeHead(res.status, answer);
  out.flushHeaders();
  try {
    if (res.body) {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        if (!out.write(chunk)) await new Promise((r) => out.once('drain', r));
      }
    }
    out.end();
  } catch {
    out.destroy();
  }
  return reply;
}
