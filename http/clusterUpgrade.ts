import {
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import { NotOwnerError, UnauthorizedError, UnavailableError } from '../actors/runtime/errors.ts';
import type { ClusterRouting } from '../actors/supervisor/cluster/clusterCoordinator.ts';
import { tokenAccepted } from './apiToken.ts';
import { CITY_OWNER, FORWARDED_BY } from './clusterRouting.ts';
import { newRequestId } from './middleware.ts';
import { PROBLEM_TYPE, toProblem } from './problem.ts';

type UpgradeListener = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

const CITY_PATH = /^\/v0\/city\/([^/?]+)(\/[^?]*)?/;
// Served by every supervisor from JetStream, as clusterRouting's REPLICA_READS: never an upgrade to pass on.
const REPLICA_READS = new Set(['/events', '/events/stream']);

/**
 * Where an upgrade request goes in cluster mode: `local` (this supervisor owns the city, or the path is not
 * a city's), `forward` to the owner's API URL, or a refusal thrown as the plain requests' hook does
 * (401, 503 journal_unavailable / no_owner, 421 not_owner). Pure but for the routing table it reads.
 */
export function upgradeRoute(
  req: Pick<IncomingMessage, 'url' | 'headers' | 'method'>,
  cluster: ClusterRouting,
  apiToken: string | undefined,
): { kind: 'local' } | { kind: 'forward'; base: string } {
  const url = req.url ?? '';
  const m = CITY_PATH.exec(url);
  if (!m) return { kind: 'local' };
  if (req.method === 'GET' && REPLICA_READS.has(m[2] ?? '')) return { kind: 'local' };
  let city: string;
  try {
    city = decodeURIComponent(m[1]!);
  } catch {
    return { kind: 'local' };
  }
  const route = cluster.route(city);
  if (!route || route.kind === 'me') return { kind: 'local' };
  // Checked before anything of the cluster is told: an unauthenticated peer learns no owner's URL.
  if (!tokenAccepted({ headers: req.headers, url }, apiToken)) throw new UnauthorizedError();
  if (!cluster.connected)
    throw new UnavailableError(
      'this supervisor cannot reach the NATS broker; another supervisor of the cluster can serve you',
      'journal_unavailable',
    );
  if (route.kind === 'none')
    throw new UnavailableError(`city ${city} has no owner right now (failover in progress)`, 'no_owner');
  if (!cluster.forward || req.headers[FORWARDED_BY] !== undefined) throw new NotOwnerError(city, route.owner);
  return { kind: 'forward', base: route.owner.url };
}

/** Writes `err` as a Problem Details answer on a raw upgrade socket and closes it. */
function refuse(socket: Duplex, err: unknown, extra: Record<string, string>): void {
  const p = toProblem(err);
  const body = JSON.stringify(p);
  const headers = {
    'Content-Type': PROBLEM_TYPE,
    'X-GC-Request-Id': newRequestId(),
    ...(p.status === 401 ? { 'WWW-Authenticate': 'Bearer realm="gc"' } : {}),
    ...(p.status === 503 ? { 'Retry-After': '1' } : {}),
    ...extra,
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
  socket.end(`HTTP/1.1 ${p.status} ${p.title}\r\n${lines.join('')}\r\n${body}`);
}

// Framing of the owner's connection: a relayed refusal's body arrives decoded and ends with the connection.
const FRAMING = new Set(['transfer-encoding', 'connection', 'keep-alive']);

/**
 * The head of a raw HTTP/1.1 answer: status line and headers (repeated ones as Node keeps them raw). A
 * refusal (`framed` false) goes without the owner's framing headers and closes the connection when its body
 * is written, so a chunked answer from the owner is never announced as chunked to the client. Pure.
 */
function answerHead(res: IncomingMessage, extra: Record<string, string>, framed: boolean): string {
  let head = `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n`;
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    const name = res.rawHeaders[i]!;
    if (!framed && FRAMING.has(name.toLowerCase())) continue;
    head += `${name}: ${res.rawHeaders[i + 1]}\r\n`;
  }
  for (const [k, v] of Object.entries(extra)) head += `${k}: ${v}\r\n`;
  return head + (framed ? '' : 'Connection: close\r\n') + '\r\n';
}

/**
 * Opens the same upgrade request at the owner `base` and splices the two connections once the owner
 * switches protocols (a WebSocket then runs end to end through this supervisor). Every header goes along,
 * `Upgrade`/`Connection` and the client's credentials included (one token serves the whole cluster), with
 * `X-GC-Forwarded-By` so the owner never passes it on again. An owner that answers without upgrading has
 * its answer relayed as is; one that does not answer is a `503 owner_unreachable` problem.
 */
function forwardUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, base: string, me: string): void {
  // The same path under the owner's API URL, as the plain forwarding builds it (a path prefix kept).
  const target = new URL(base.replace(/\/+$/, '') + (req.url ?? '/'));
  const headers: IncomingHttpHeaders = { ...req.headers, [FORWARDED_BY]: me };
  delete headers.host; // the owner's, set from the target
  const peer = req.socket.remoteAddress ?? '';
  const xff = req.headers['x-forwarded-for'];
  headers['x-forwarded-for'] = typeof xff === 'string' && xff !== '' ? `${xff}, ${peer}` : peer;
  const hop = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, {
    method: req.method,
    headers,
  });
  const ownerHeader = { [CITY_OWNER]: base };
  const closeBoth = (upstream?: Duplex) => {
    socket.destroy();
    upstream?.destroy();
  };
  socket.once('error', () => hop.destroy());
  socket.once('close', () => hop.destroy());
  hop.once('error', (err) => {
    if (socket.destroyed) return;
    refuse(
      socket,
      new UnavailableError(`the owner of this city at ${base} did not answer`, 'owner_unreachable', {
        cause: err,
      }),
      ownerHeader,
    );
  });
  hop.once('upgrade', (res: IncomingMessage, upstream: Duplex, upstreamHead: Buffer) => {
    if (socket.destroyed) return void upstream.destroy();
    upstream.once('error', () => closeBoth(upstream));
    socket.once('error', () => closeBoth(upstream));
    upstream.once('close', () => closeBoth(upstream));
    socket.once('close', () => closeBoth(upstream));
    socket.write(answerHead(res, ownerHeader, true));
    if (upstreamHead.length > 0) socket.write(upstreamHead);
    if (head.length > 0) upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  hop.once('response', (res: IncomingMessage) => {
    // No switch: the owner's own answer (a 404, 401 or 503 problem, say) goes back whole.
    socket.write(answerHead(res, ownerHeader, false));
    res.pipe(socket);
  });
  hop.end();
}

/**
 * Puts cluster routing in front of the server's `upgrade` listeners (the workspace-service proxy's
 * WebSocket handler and any other), as clusterRouting's hook stands in front of the plain routes: an
 * upgrade request for a city another supervisor owns is forwarded to the owner, or refused as the plain
 * requests are; every other upgrade reaches the local listeners unchanged. Done once the app is ready, when
 * the routes have added their listeners (Node calls all of an event's listeners: one of them cannot stop
 * the others, so one dispatcher replaces them).
 */
export function registerClusterUpgrade(
  server: Server,
  cluster: ClusterRouting,
  apiToken: string | undefined,
): void {
  const local = server.listeners('upgrade') as UpgradeListener[];
  server.removeAllListeners('upgrade');
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    let route: ReturnType<typeof upgradeRoute>;
    try {
      route = upgradeRoute(req, cluster, apiToken);
    } catch (err) {
      const owner: Record<string, string> =
        err instanceof NotOwnerError && err.owner ? { [CITY_OWNER]: err.owner.url } : {};
      return refuse(socket, err, owner);
    }
    if (route.kind === 'forward') return forwardUpgrade(req, socket, head, route.base, cluster.me.id);
    for (const listener of local) listener.call(server, req, socket, head);
  });
}
