/**
 * Node gives every request that carries `Upgrade` to the server's `upgrade` listeners, never to the router:
 * only `/svc/` paths upgrade, and any other path must still be answered as the plain request it also is
 * (over a real socket: the behaviour is about the socket), never left hanging.
 */
import { connect } from 'node:net';
import t from 'tap';
import { startTestSupervisor } from '../helpers/supervisor.ts';

/** Sends `head` raw and resolves everything the server wrote before it closed (or 5 s passed). */
function raw(url: string, head: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => socket.write(head));
    let got = '';
    socket.setEncoding('utf8').on('data', (s: string) => (got += s));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(`${got}<timed out>`);
    }, 5000);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(got);
    });
  });
}

t.test('a request with Upgrade to a path that does not upgrade is served plainly', async (t) => {
  const s = await startTestSupervisor(t);
  const upgrade =
    'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n' +
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';
  const health = await raw(s.url, `GET /health HTTP/1.1\r\nHost: x\r\n${upgrade}\r\n`);
  t.match(health, /^HTTP\/1\.1 200 /, 'GET /health answers 200');
  t.notMatch(health, /timed out/);
  const cities = await raw(s.url, `GET /v0/cities HTTP/1.1\r\nHost: x\r\n${upgrade}\r\n`);
  t.match(cities, /^HTTP\/1\.1 200 /);
  t.match(cities, /"items"/, 'with its body');
  const missing = await raw(s.url, `GET /v0/nowhere HTTP/1.1\r\nHost: x\r\n${upgrade}\r\n`);
  t.match(missing, /^HTTP\/1\.1 404 /, 'an unknown path is the usual 404 problem');
  t.match(missing, /application\/problem\+json/);
  await s.close();
});
