import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { writeToolShims } from '../../actors/sessions/sessionEnv.ts';
import { ROOT } from '../cli/helpers/gc.ts';
import { nodeChild } from '../helpers/childEnv.ts';
import { eventually } from '../helpers/supervisor.ts';
import { workCity } from './helpers.ts';

/**
 * The mock agent's hooks and scripted worker mode against a real city: it runs the SessionStart hook gc
 * installed (gc prime --hook) and reads its output, asks for work through the Stop hook (gc hook
 * --inject), claims, writes and commits a file, closes, mails the mayor, and idles when nothing is left.
 */

t.setTimeout(180_000);

t.test('a mock worker takes routed beads through to closed, once each', async (t) => {
  const city = await workCity(t);
  const added = await city.sup.call('POST', `/v0/city/${city.name}/agents`, {
    name: 'polecat',
    provider: 'mock',
  });
  t.equal(added.status, 201);
  const tmp = mkdtempSync(join(tmpdir(), 'gc-worker-'));
  t.teardown(() => rmSync(tmp, { recursive: true, force: true }));
  const work = join(tmp, 'wt');
  execFileSync('git', ['init', '-q', work]);
  execFileSync('git', ['-C', work, 'config', 'user.email', 'w@example.com']);
  execFileSync('git', ['-C', work, 'config', 'user.name', 'worker']);
  execFileSync('git', ['-C', work, 'commit', '-q', '--allow-empty', '-m', 'root']);
  const shims = writeToolShims(join(tmp, 'bin'))!;

  const ids: string[] = [];
  for (const title of ['one', 'two', 'three']) {
    const r = await city.bd(['create', title, '--metadata', '{"gc.routed_to":"polecat"}', '--silent']);
    ids.push(r.stdout.trim());
  }
  const env = {
    ...city.env,
    PATH: `${shims}:${process.env.PATH}`,
    GC_TEMPLATE: 'polecat',
    GC_SESSION_ID: 'worker-1',
    GC_SESSION_NAME: 'worker-1',
    GC_ALIAS: 'worker-1',
    GC_AGENT: 'worker-1',
    BEADS_ACTOR: 'worker-1',
    GC_SESSION_ORIGIN: 'ephemeral',
    GC_MOCK_POLL_MS: '200',
  };
  const settings = join(city.dir, '.gc', 'settings.json');
  const child = spawn(
    ...nodeChild([
      join(ROOT, 'bin', 'gc-mock-agent.mjs'),
      '--worker',
      '--settings',
      settings,
      '--log-dir',
      tmp,
    ]),
    { cwd: work, env, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
  t.teardown(() => {
    child.kill('SIGKILL');
  });
  await eventually(async () => (out.match(/worked \S+/g) ?? []).length === 3, 60_000).catch((e: Error) => {
    throw new Error(`${e.message}; worker stdout:\n${out}\nstderr:\n${err}`);
  });
  t.match(
    out,
    /^hook SessionStart: \[alpha\] worker-1 • \d{4}-/m,
    'the SessionStart hook ran: gc prime --hook',
  );

  for (const id of ids) {
    const b = (await city.sup.call('GET', `/v0/city/${city.name}/bead/${id}`)).body as Record<
      string,
      unknown
    >;
    t.match(b, { status: 'closed', assignee: 'worker-1' }, `${id} closed by the worker`);
  }
  const commits = execFileSync('git', ['-C', work, 'log', '--format=%s'], { encoding: 'utf8' })
    .trim()
    .split('\n');
  t.same(commits.slice(0, 3).sort(), ids.map((id) => `Work on ${id}`).sort(), 'one commit per bead');
  t.equal(readFileSync(join(work, 'mock-work', `${ids[0]}.txt`), 'utf8'), 'one\n');

  const inbox = await city.gc(['mail', 'inbox', 'mayor']);
  for (const id of ids) t.match(inbox.stdout, new RegExp(`worker-1\\s+Done: ${id}\\s+Finished ${id}`));

  // Each bead went open → in_progress → closed exactly once, in that order, in the city's event stream.
  const events = (await city.sup.call('GET', `/v0/city/${city.name}/events?limit=1000`)).body as {
    items: { seq: number; type: string; subject?: string; payload?: { bead?: { status?: string } } }[];
  };
  for (const id of ids) {
    const steps = [...events.items]
      .sort((a, b) => a.seq - b.seq)
      .filter(
        (e) =>
          e.subject === id &&
          (e.type === 'bead.created' || e.type === 'bead.updated' || e.type === 'bead.closed'),
      )
      .map((e) => `${e.type}:${e.payload?.bead?.status}`);
    t.same(
      steps,
      ['bead.created:open', 'bead.updated:in_progress', 'bead.closed:closed'],
      `${id}: each step once`,
    );
  }
});
