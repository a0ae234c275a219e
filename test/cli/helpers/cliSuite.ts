import { join } from 'node:path';
import type { Test } from 'tap';
import { GcProcess, jsonLines, runGc, type GcResult } from './gc.ts';
import { lineValidator, type LineKind, type LineValidator } from './lineSchema.ts';
import { startSupervisorProc, type SupervisorProc } from './supervisorProc.ts';

/**
 * `gc events` and the city commands, run as the built binary against a real supervisor (a child
 * `gc supervisor run`). Every printed line is validated against the events.json the supervisor serves.
 * Run on each journal backend by events.supervisor.*.test.ts.
 */

type Ev = Record<string, unknown> & { seq: number; type: string; payload?: Record<string, unknown> };

interface Ctx {
  sup: SupervisorProc;
  validate: LineValidator;
  /** Runs gc with the supervisor's environment (found through $GC_HOME/supervisor.json). */
  gc(args: string[], opts?: { cwd?: string }): Promise<GcResult>;
}

/** Asserts a successful run whose every stdout line is a valid `kind` line; returns the parsed lines. */
function lines(t: Test, ctx: Ctx, r: GcResult, kind: LineKind, what: string): Ev[] {
  t.equal(r.code, 0, `${what}: exit 0 (stderr: ${r.stderr})`);
  const out = jsonLines(r.stdout) as Ev[];
  for (const l of out) {
    const err = ctx.validate(l, kind);
    if (err) t.fail(`${what}: line ${JSON.stringify(l)} is not a valid ${kind}: ${err}`);
  }
  return out;
}

/** Waits until every named city is running again (a restarted supervisor reconciles its cities first). */
async function running(ctx: Ctx, ...names: string[]): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const body = (await ctx.sup.call('GET', '/v0/cities')).body as {
      items: { name: string; running: boolean }[];
    };
    if (names.every((n) => body.items.some((c) => c.name === n && c.running))) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`cities ${names.join(', ')} did not come back`);
}

/** Records an event in city alpha (POST /v0/city/alpha/events): type `test.<kind>`, subject `name`. */
async function emit(ctx: Ctx, name: string, kind = 'tick'): Promise<void> {
  const r = await ctx.sup.call('POST', '/v0/city/alpha/events', {
    type: `test.${kind}`,
    actor: 'cli-test',
    subject: name,
  });
  if (r.status !== 201) throw new Error(`emit: ${r.status} ${JSON.stringify(r.body)}`);
}

/**
 * The whole CLI-against-supervisor scenario on one journal backend (`natsUrl` set: JetStream). Each step
 * builds on the previous one (a city created by the first is followed, filtered and unregistered later).
 */
export async function cliSuite(t: Test, natsUrl: string | undefined): Promise<void> {
  const sup = await startSupervisorProc(t, { natsUrl });
  const ctx: Ctx = {
    sup,
    validate: await lineValidator(sup.url),
    gc: (args, opts = {}) => runGc(args, { env: sup.env, cwd: opts.cwd ?? sup.home }),
  };
  const cityDir = join(sup.cities, 'alpha');

  await t.test('gc city create --wait prints the terminal event of its request', async (t) => {
    const r = await ctx.gc(['city', 'create', cityDir, '--start-command', 'sleep 600', '--wait']);
    const [ev, ...rest] = lines(t, ctx, r, 'supervisorStreamLine', 'create');
    t.same(rest, [], 'exactly one line');
    t.equal(ev?.type, 'request.result.city.create');
    t.match(ev?.payload, { request_id: /^req-/, name: 'alpha', path: cityDir });
    const cities = await ctx.gc(['cities', '--json']);
    t.match(jsonLines(cities.stdout), [{ name: 'alpha', path: cityDir, running: true }]);
    const table = await ctx.gc(['cities']);
    t.match(table.stdout, /^NAME\s+RUNNING\s+STATUS\s+PATH\nalpha\s+yes\s+\S+\s+\S*alpha\n$/);
  });

  await emit(ctx, 'first', 'one');
  await emit(ctx, 'second', 'two');
  await emit(ctx, 'third', 'one');

  await t.test('list mode: city and supervisor scope, oldest first, every line valid', async (t) => {
    const city = lines(t, ctx, await ctx.gc(['events', '--city', 'alpha']), 'cityListLine', 'city list');
    t.ok(city.length >= 4, `${city.length} city events`);
    t.same(
      city.map((e) => e.seq),
      city.map((_, i) => i + 1),
      'every seq once, ascending from 1',
    );
    t.equal(city[0]?.type, 'city.created');
    t.notOk(
      city.some((e) => 'city' in e),
      'city lines have no city tag',
    );
    const fromCwd = lines(
      t,
      ctx,
      await ctx.gc(['events'], { cwd: join(cityDir, '.gc') }),
      'cityListLine',
      'cwd',
    );
    t.same(fromCwd, city, 'inside the city directory the city is in scope');
    const all = lines(t, ctx, await ctx.gc(['events']), 'supervisorListLine', 'supervisor list');
    t.ok(all.every((e) => typeof e.city === 'string'));
    t.ok(all.some((e) => e.type === 'request.result.city.create'));
    t.ok(all.some((e) => e.type === 'test.one' && e.city === 'alpha'));
    const ts = all.map((e) => Date.parse(String(e.ts)));
    t.same(
      ts,
      [...ts].sort((a, b) => a - b),
      'oldest first',
    );
  });

  await t.test('filters select without reshaping; no match is empty stdout', async (t) => {
    const r = await ctx.gc([
      'city',
      'create',
      join(sup.cities, 'beta'),
      '--start-command',
      'sleep 600',
      '--wait',
    ]);
    t.equal(r.code, 0, r.stderr);
    const list = async (kind: LineKind, ...args: string[]) =>
      lines(t, ctx, await ctx.gc(['events', ...args]), kind, args.join(' '));
    const subjects = (evs: Ev[]) => evs.map((e) => e.subject);
    t.same(subjects(await list('cityListLine', '--city', 'alpha', '--type', 'test.one')), ['first', 'third']);
    const created = await list('supervisorListLine', '--type', 'city.created');
    t.same(subjects(created), ['alpha', 'beta']);
    t.same(
      subjects(await list('supervisorListLine', '--payload-match', 'name=beta', '--type', 'city.created')),
      ['beta'],
    );
    t.same(
      subjects(
        await list(
          'supervisorListLine',
          '--type',
          'city.created',
          '--payload-match',
          'name=alpha',
          '--payload-match',
          'name=beta',
        ),
      ),
      ['alpha', 'beta'],
      'same path: OR',
    );
    t.same(
      subjects(
        await list(
          'supervisorListLine',
          '--payload-match',
          'name=alpha',
          '--payload-match',
          `path=${join(sup.cities, 'beta')}`,
        ),
      ),
      [],
      'different paths: AND',
    );
    const accepted = await list(
      'supervisorListLine',
      '--type',
      'request.result.city.create',
      '--payload-match',
      'name=beta',
    );
    t.equal(accepted.length, 1);
    const everything = await list('cityListLine', '--city', 'alpha');
    t.same(
      await list('cityListLine', '--city', 'alpha', '--since', '1h'),
      everything,
      '--since 1h keeps today',
    );
    const after = await list('cityListLine', '--city', 'alpha', '--after', '2');
    t.same(
      after,
      everything.filter((e) => e.seq > 2),
    );
    for (const [title, type] of [
      ['crash', 'bug'],
      ['chore', 'task'],
    ]) {
      const b = await ctx.sup.call('POST', '/v0/city/alpha/beads', { title, type });
      t.equal(b.status, 201, `bead ${title}`);
    }
    const nested = await list(
      'cityListLine',
      '--city',
      'alpha',
      '--type',
      'bead.created',
      '--payload-match',
      'bead.issue_type=bug',
    );
    t.same(
      nested.map((e) => (e.payload?.bead as { title?: string }).title),
      ['crash'],
      'a dotted path into the nested bead',
    );
    const none = await ctx.gc(['events', '--city', 'alpha', '--type', 'no.such.type']);
    t.same([none.code, none.stdout, none.stderr], [0, '', '']);
  });

  await t.test('--seq prints the city head and the supervisor cursor as plain text', async (t) => {
    const city = await ctx.gc(['events', '--city', 'alpha', '--seq']);
    const head = (await ctx.sup.call('GET', '/v0/city/alpha/events?limit=1')).headers.get('x-gc-index');
    t.same([city.code, city.stdout, city.stderr], [0, `${head}\n`, '']);
    const cursor = await ctx.gc(['events', '--seq']);
    t.equal(cursor.code, 0);
    t.match(cursor.stdout, /^__supervisor__:\d+,alpha:\d+,beta:\d+\n$/);
    const body = (await ctx.sup.call('GET', '/v0/events?limit=1')).body as { event_cursor: string };
    t.equal(cursor.stdout, `${body.event_cursor}\n`);
  });

  await t.test('--watch from the head prints the first new match and exits 0', async (t) => {
    const before = Number((await ctx.gc(['events', '--city', 'alpha', '--seq'])).stdout);
    const w = new GcProcess(
      ['events', '--city', 'alpha', '--watch', '--type', 'test.watched', '--timeout', '20s'],
      {
        env: ctx.sup.env,
      },
    );
    // The watcher's connect time is not observable: keep recording until it has seen one.
    let n = 0;
    const feeding = (async () => {
      while (w.lines.length === 0 && n < 60) {
        await emit(ctx, `watched-${n++}`, 'watched');
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const r = await w.done;
    await feeding;
    const [ev, ...rest] = lines(t, ctx, r, 'cityStreamLine', 'watch');
    t.same(rest, []);
    t.equal(ev?.type, 'test.watched');
    t.ok(ev!.seq > before, 'nothing recorded before it started');
  });

  await t.test('--watch with --after / --after-cursor finds a recorded match at once', async (t) => {
    const r = await ctx.gc(['events', '--city', 'alpha', '--watch', '--after', '0', '--type', 'test.one']);
    t.same(
      lines(t, ctx, r, 'cityStreamLine', 'watch --after').map((e) => e.subject),
      ['first'],
    );
    const r2 = await ctx.gc(['events', '--city', 'alpha', '--watch', '--after', '3', '--type', 'test.one']);
    t.same(
      lines(t, ctx, r2, 'cityStreamLine', 'watch --after 3').map((e) => e.subject),
      ['third'],
    );
    const s = await ctx.gc([
      'events',
      '--watch',
      '--after-cursor',
      '0',
      '--type',
      'request.result.city.create',
    ]);
    const [ev, ...rest] = lines(t, ctx, s, 'supervisorStreamLine', 'watch --after-cursor');
    t.same(rest, []);
    t.equal(ev?.type, 'request.result.city.create');
  });

  await t.test('--watch times out quietly; a Problem at setup is one stderr line', async (t) => {
    const r = await ctx.gc([
      'events',
      '--city',
      'alpha',
      '--watch',
      '--type',
      'never.happens',
      '--timeout',
      '1s',
    ]);
    t.same([r.code, r.stdout, r.stderr], [0, '', '']);
    const p = await ctx.gc(['events', '--city', 'nope', '--watch']);
    t.same(
      [p.code, p.stdout, p.stderr],
      [1, '', 'gc events: not_found: city not found or not running: nope\n'],
    );
    const f = await ctx.gc(['events', '--city', 'nope', '--follow']);
    t.same([f.code, f.stdout], [1, '']);
  });

  await t.test('--follow across a graceful restart and a crash: no line missing or repeated', async (t) => {
    const args = ['--follow', '--type', 'test.follow'];
    const city = new GcProcess(['events', '--city', 'alpha', ...args], { env: ctx.sup.env });
    const all = new GcProcess(['events', ...args], { env: ctx.sup.env });
    t.teardown(() => Promise.all([city.stop(), all.stop()]));
    // Record until both followers are demonstrably connected.
    for (let i = 0; city.lines.length === 0 || all.lines.length === 0; i++) {
      if (i > 60) throw new Error(`followers never connected: ${city.stderr} ${all.stderr}`);
      await emit(ctx, `warmup-${i}`, 'follow');
      await new Promise((r) => setTimeout(r, 250));
    }
    const sent: string[] = [];
    const add = async (name: string) => {
      await emit(ctx, name, 'follow');
      sent.push(name);
    };
    await add('before-1');
    await add('before-2');
    t.equal(await ctx.sup.stop('SIGTERM'), 0, 'a graceful stop exits 0');
    await ctx.sup.start();
    await running(ctx, 'alpha', 'beta');
    await add('after-restart-1');
    await city.waitForStderr(/reconnecting|retrying/);
    await ctx.sup.stop('SIGKILL');
    await ctx.sup.start();
    await running(ctx, 'alpha', 'beta');
    await add('after-crash-1');
    await add('after-crash-2');
    const subjects = (p: GcProcess) => jsonLines(p.stdout()).map((e) => String(e.subject));
    await city.until(() => subjects(city).includes('after-crash-2'), 30_000, 'the city follower to catch up');
    await all.until(
      () => subjects(all).includes('after-crash-2'),
      30_000,
      'the supervisor follower to catch up',
    );
    for (const [name, p, kind] of [
      ['city', city, 'cityStreamLine'],
      ['supervisor', all, 'supervisorStreamLine'],
    ] as const) {
      const got = lines(t, ctx, { code: 0, signal: null, stdout: p.stdout(), stderr: '' }, kind, name);
      const seen = subjects(p);
      t.same(
        seen.filter((x) => !x.startsWith('warmup')),
        sent,
        `${name}: every event, in order`,
      );
      t.equal(new Set(seen).size, seen.length, `${name}: no line twice`);
      const seqs = got.map((e) => e.seq);
      t.same(
        seqs,
        [...seqs].sort((a, b) => a - b),
        `${name}: seqs ascending`,
      );
      t.match(
        p.stderr,
        /gc events: (stream ended|stream broke|connect failed)/,
        `${name}: reconnects are reported on stderr`,
      );
    }
  });

  await t.test('gc city unregister --wait prints request.result.city.unregister', async (t) => {
    const r = await ctx.gc(['city', 'unregister', 'alpha', '--wait']);
    const [ev, ...rest] = lines(t, ctx, r, 'supervisorStreamLine', 'unregister');
    t.same(rest, []);
    t.equal(ev?.type, 'request.result.city.unregister');
    t.match(ev?.payload, { request_id: /^req-/, name: 'alpha' });
    const again = await ctx.gc(['city', 'unregister', 'alpha']);
    t.same([again.code, again.stdout], [1, '']);
    t.match(again.stderr, /^gc city unregister: not_found: /);
  });
}
