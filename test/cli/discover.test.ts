import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { apiCandidates, DEFAULT_API, discoverApi, DISCOVERY_FAILED } from '../../cli/discover.ts';
import { connectableUrl } from '../../cli/home.ts';

/** A server answering /health with `status`, on a free loopback port. */
async function healthServer(t: Test, status = 200): Promise<string> {
  const srv: Server = createServer((_req, res) => res.writeHead(status).end('{}'));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => srv.close(() => r())));
  const addr = srv.address();
  return `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
}

async function home(t: Test, record?: unknown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gc-cli-home-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  if (record !== undefined) await writeFile(join(dir, 'supervisor.json'), JSON.stringify(record));
  return dir;
}

/** An address nothing listens on (port 9 on loopback: discard, never served here). */
const DEAD = 'http://127.0.0.1:9';

t.test(
  'discovery order: --api, then GC_API, then the live supervisor record, then the default',
  async (t) => {
    const env = { GC_API: 'http://env:1' };
    const record = { url: 'http://rec:2' };
    t.same(apiCandidates({ flag: 'http://flag:3', env, record }), [{ url: 'http://flag:3', source: 'flag' }]);
    t.same(apiCandidates({ env, record }), [{ url: 'http://env:1', source: 'env' }]);
    t.same(apiCandidates({ env: {}, record }), [
      { url: 'http://rec:2', source: 'supervisor.json' },
      { url: DEFAULT_API, source: 'default' },
    ]);
    t.same(apiCandidates({ env: {} }), [{ url: DEFAULT_API, source: 'default' }]);
    t.same(
      apiCandidates({ flag: '  ', env: { GC_API: '' } }),
      [{ url: DEFAULT_API, source: 'default' }],
      'blank values do not count',
    );
    t.same(
      apiCandidates({ env: {}, record: { url: 'http://0.0.0.0:8372' } }),
      [{ url: DEFAULT_API, source: 'supervisor.json' }],
      'a wildcard bind is reached on loopback, and not tried twice',
    );
  },
);

t.test('wildcard listen addresses become loopback addresses', async (t) => {
  t.equal(connectableUrl('http://0.0.0.0:1234/'), 'http://127.0.0.1:1234');
  t.equal(connectableUrl('http://[::]:1234'), 'http://[::1]:1234');
  t.equal(connectableUrl('http://10.0.0.5:1234'), 'http://10.0.0.5:1234');
});

t.test('an explicit address is used as given, without a probe', async (t) => {
  t.equal(await discoverApi('http://nowhere.invalid:1/', {}, DEAD), 'http://nowhere.invalid:1');
  t.equal(await discoverApi(undefined, { GC_API: 'http://env.invalid:2' }, DEAD), 'http://env.invalid:2');
  await t.rejects(discoverApi('ftp://x', {}, DEAD), {
    message: 'invalid --api "ftp://x": expected an http(s) URL',
  });
  await t.rejects(discoverApi(undefined, { GC_API: 'nope' }, DEAD), {
    message: 'invalid GC_API "nope": expected an http(s) URL',
  });
});

t.test('a live supervisor recorded in $GC_HOME/supervisor.json is found', async (t) => {
  const url = await healthServer(t);
  const dir = await home(t, { pid: process.pid, url });
  t.equal(await discoverApi(undefined, { GC_HOME: dir }, DEAD), url);
});

t.test('a record whose pid is dead is ignored, and the default is probed', async (t) => {
  const url = await healthServer(t);
  const dir = await home(t, { pid: 2 ** 22 + 12345, url: DEAD });
  t.equal(await discoverApi(undefined, { GC_HOME: dir }, url), url);
});

t.test('when nothing answers /health, discovery fails with the documented message', async (t) => {
  const dir = await home(t, { pid: process.pid, url: DEAD });
  await t.rejects(discoverApi(undefined, { GC_HOME: dir }, DEAD), { message: DISCOVERY_FAILED });
  const sick = await healthServer(t, 503);
  await t.rejects(
    discoverApi(undefined, { GC_HOME: dir }, sick),
    { message: DISCOVERY_FAILED },
    'a 503 is not an answer',
  );
  const garbled = await home(t);
  await writeFile(join(garbled, 'supervisor.json'), 'not json');
  await t.rejects(discoverApi(undefined, { GC_HOME: garbled }, DEAD), { message: DISCOVERY_FAILED });
});
