import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { MAX_CITY_DIR_BYTES, resolveCityDir } from '../../actors/supervisor/cityScaffold.ts';
import { ValidationError } from '../../actors/runtime/errors.ts';
import {
  startTestSupervisor,
  waitForTerminal,
  type Reply,
  type TestSupervisor,
} from '../helpers/supervisor.ts';

/**
 * Directories a create must refuse up front, before any scaffold step: ones on kernel pseudo-filesystems
 * (where `mkdir -p` never returns under /proc) and ones too long for the files the scaffold puts inside.
 */

/** POST /v0/city over the socket; a create that never answers fails the test instead of hanging it. */
async function create(s: TestSupervisor, dir: string): Promise<Reply> {
  const res = await fetch(`${s.url}/v0/city`, {
    method: 'POST',
    headers: { 'x-gc-request': '1', 'content-type': 'application/json' },
    body: JSON.stringify({ dir, start_command: 'bash -l' }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

const names = async (s: TestSupervisor): Promise<string[]> =>
  ((await s.call('GET', '/v0/cities')).body.items as Array<{ name: string }>).map((c) => c.name);

t.test(
  'a dir on a kernel pseudo-filesystem is a 422 at body.dir, every time (never a hang or 409)',
  async (t) => {
    const s = await startTestSupervisor(t);
    const unique = `gc-test-${randomBytes(4).toString('hex')}`;
    // Were they scaffolded (the bug), these would land in real places: remove them whatever happens.
    t.teardown(() => {
      for (const p of [join('/dev', unique), join('/dev/shm', unique)])
        rmSync(p, { recursive: true, force: true });
    });
    symlinkSync('/proc', join(s.root, 'proclink'));
    const dirs = [
      '/proc/y',
      '/proc',
      '/proc/sys/kernel/y',
      '/sys/y',
      join('/dev', unique),
      join('/dev/shm', unique),
      // Through a symlink to /proc: refused by where it really is.
      join(s.root, 'proclink', 'y'),
      // Through /proc's magic links to a normal directory: refused by what was asked for.
      join('/proc/self/root', realpathSync(s.root), 'viaproc'),
    ];
    for (const dir of dirs) {
      for (const attempt of ['first', 'second']) {
        const res = await create(s, dir);
        t.equal(res.status, 422, `${dir} (${attempt})`);
        t.match(res.body.detail, /^invalid city directory: /, `${dir}: detail`);
        t.match(
          res.body.errors,
          [{ location: 'body.dir', value: dir, message: /pseudo-filesystem/ }],
          `${dir}: errors[] names body.dir`,
        );
      }
    }
    t.equal(s.running.supervisor.claims.size, 0, 'no claim is held');
    t.same(await names(s), [], 'nothing was registered');
    t.notOk(existsSync(join(realpathSync(s.root), 'viaproc')), 'nothing was scaffolded');
    t.same(
      (await s.log.list()).map((e) => e.type),
      ['supervisor.started'],
      'nothing was recorded',
    );
  },
);

t.test(
  'the file system type of the nearest existing ancestor is checked, not only the prefixes',
  async (t) => {
    const s = await startTestSupervisor(t);
    const PROC_SUPER_MAGIC = 0x9fa0;
    const CGROUP2_SUPER_MAGIC = 0x63677270;
    for (const [magic, fs] of [
      [PROC_SUPER_MAGIC, 'proc'],
      [CGROUP2_SUPER_MAGIC, 'cgroup2'],
    ] as const) {
      const dir = join(s.root, 'mnt', 'city');
      const err = await resolveCityDir(dir, s.home, { fsTypeOf: async () => magic }).catch((e: unknown) => e);
      t.type(err, ValidationError, fs);
      t.match(err, {
        message: new RegExp(`pseudo-filesystem \\(${fs}\\)`),
        errors: [{ location: 'body.dir', value: dir }],
      });
    }
    const ok = await resolveCityDir(join(s.root, 'city'), s.home);
    t.equal(ok.name, 'city', 'an ordinary file system passes with the real probe');
  },
);

/** An absolute path of exactly `bytes` bytes under `base`, its last name a valid city name. */
function dirOfLength(base: string, bytes: number): string {
  let dir = base;
  while (bytes - dir.length > 250) dir += '/' + 'd'.repeat(200);
  return `${dir}/${'c'.repeat(bytes - dir.length - 1)}`;
}

t.test('a dir too long for what the scaffold puts inside it is a 422 at body.dir, never a 500', async (t) => {
  const s = await startTestSupervisor(t);
  const base = realpathSync(s.root);
  const refused = [MAX_CITY_DIR_BYTES + 1, 4079, 4080, 4090, 4094, 4095, 4096];
  t.ok(MAX_CITY_DIR_BYTES < 4079, 'the limit leaves room for <dir>/.gc/events.jsonl and its neighbours');
  for (const bytes of refused) {
    const dir = dirOfLength(base, bytes);
    t.equal(Buffer.byteLength(dir), bytes);
    const res = await create(s, dir);
    t.equal(res.status, 422, `${bytes} bytes`);
    t.equal(
      res.body.detail,
      `invalid city directory: dir is too long (at most 255 bytes per name, ${MAX_CITY_DIR_BYTES} in all)`,
      `${bytes} bytes: detail`,
    );
    t.match(res.body.errors, [{ location: 'body.dir', value: dir }], `${bytes} bytes: errors[]`);
  }
  t.same(await names(s), [], 'nothing was registered');

  const longest = dirOfLength(base, MAX_CITY_DIR_BYTES);
  const res = await create(s, longest);
  t.equal(res.status, 202, 'the longest dir allowed is created');
  const terminal = await waitForTerminal(s.log, res.body.request_id);
  t.equal(terminal.type, 'request.result.city.create', 'and its city starts');
  t.ok(existsSync(join(longest, '.gc', 'events.jsonl')));
  t.match(readFileSync(join(s.gcHome, 'cities.toml'), 'utf8'), longest);
});
