/**
 * The floor of the svc proxy bench: a bare Node reverse proxy in its own process, the same hops as the
 * supervisor's (client → loopback TCP → this process → the service's unix socket), nothing else: each
 * request is `http.request` to the socket with a keep-alive agent, the body piped both ways, status and
 * headers copied. `node dist/bench/svcBareProxy.js <socketPath>`; prints `{"port":N}` once listening.
 */
import { Agent, createServer, request } from 'node:http';

const socketPath = process.argv[2];
if (!socketPath) throw new Error('usage: svcBareProxy <socketPath>');
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const server = createServer((req, res) => {
  const upstream = request(
    { agent, socketPath, path: req.url, method: req.method, headers: req.headers },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  req.pipe(upstream);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`,
  );
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
