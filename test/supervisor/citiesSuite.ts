import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { cityLogFile } from '../../actors/supervisor/cityActor.ts';
import { CITY_PHASES } from '../../actors/runtime/cityServices.ts';
import type { JournalBackend } from '../../actors/runtime/journal/journal.ts';
import { openJournalBackend } from '../../actors/runtime/journal/openBackend.ts';
import { withoutCauses } from '../../schemas/eventCauses.ts';
import {
  eventually,
  fakeHost,
  gate,
  gatedService,
  startTestSupervisor,
  terminalsOf,
  waitForTerminal,
  type StartOptions,
  type TestSupervisor,
} from '../helpers/supervisor.ts';

const REQUEST_ID = /^req-[0-9a-f]{24}$/;

/** Reads a city's log through a backend of the same kind as the supervisor's. */
async function cityEvents(natsUrl: string | undefined, name: string, dir: string) {
  const backend: JournalBackend = openJournalBackend({ natsUrl });
  try {
    return await (await backend.open({ name, file: cityLogFile(dir) })).list();
  } finally {
    await backend.close();
  }
}

/**
 * The city operations over real HTTP, run against one journal backend. `natsUrl` selects JetStream.
 */
export function citiesSuite(t: Test, natsUrl: string | undefined): void {
  const start = (t: Test, opts: StartOptions = {}): Promise<TestSupervisor> =>
    startTestSupervisor(t, { ...opts, ...(natsUrl ? { natsUrl } : {}) });

  t.test(
    'a create answers 202 once the city is scaffolded, registered and recorded, then completes once',
    async (t) => {
      const s = await start(t);
      const dir = join(s.root, 'alpha');
      const headBefore = await s.log.head();
      const res = await s.call('POST', '/v0/city', { dir, start_command: 'echo hi' });
      t.equal(res.status, 202);
      t.same(Object.keys(res.body).sort(), ['event_cursor', 'request_id']);
      t.match(res.body.request_id, REQUEST_ID);
      t.equal(
        res.body.event_cursor,
        `__supervisor__:${headBefore}`,
        'the cursor is captured before the work',
      );

      // At the 202: scaffolded, registered, attached (not running), city.created recorded.
      for (const p of ['city.toml', '.gc/cache', '.gc/runtime', '.gc/system', '.gc/events.jsonl']) {
        t.ok(existsSync(join(dir, p)), `${p} exists`);
      }
      t.match(readFileSync(join(s.gcHome, 'cities.toml'), 'utf8'), /name = "alpha"/);
      t.ok(s.running.supervisor.live.get('alpha'), 'the supervisor stream sees the city at once');
      const created = (await s.running.supervisor.live.get('alpha')!.journal.list())[0];
      t.match(created, {
        seq: 1,
        type: 'city.created',
        actor: 'gc',
        subject: 'alpha',
        payload: { name: 'alpha', path: dir },
      });

      const terminal = await waitForTerminal(s.log, res.body.request_id);
      t.match(terminal, {
        type: 'request.result.city.create',
        actor: 'api',
        subject: 'alpha',
        payload: { request_id: res.body.request_id, name: 'alpha', path: dir },
      });
      const accepted = (await s.log.list()).find((e) => e.type === 'request.accepted');
      t.match(accepted, {
        payload: { request_id: res.body.request_id, operation: 'city.create', name: 'alpha', path: dir },
      });
      t.ok(accepted!.seq < terminal.seq);

      const list = await s.call('GET', '/v0/cities');
      t.same(list.body, {
        items: [
          { name: 'alpha', path: dir, running: true, status: 'running', phases_completed: [...CITY_PHASES] },
        ],
        total: 1,
      });
      t.equal((await s.call('GET', '/v0/city/alpha')).status, 200);
      await s.running.supervisor.settled();
      t.equal((await terminalsOf(s.log, res.body.request_id)).length, 1, 'exactly one terminal event');
      t.same(
        (await s.running.supervisor.live.get('alpha')!.journal.list()).map((e) => e.type),
        ['city.created', 'controller.started'],
      );
    },
  );

  t.test('a relative dir resolves under $HOME', async (t) => {
    const s = await start(t);
    const res = await s.call('POST', '/v0/city', { dir: 'projects/beta', start_command: 'run' });
    t.equal(res.status, 202);
    const terminal = await waitForTerminal(s.log, res.body.request_id);
    t.equal(
      terminal.payload && (terminal.payload as { path: string }).path,
      join(s.home, 'projects', 'beta'),
    );
  });

  t.test('create refuses bad bodies with 422 and upstream details', async (t) => {
    const s = await start(t);
    mkdirSync(join(s.home, 'x'));
    writeFileSync(join(s.root, 'file'), '');
    const cases: Array<[string, unknown, string, string?]> = [
      ['missing dir', { start_command: 'x' }, 'validation failed', 'body.dir'],
      ['empty dir', { dir: '', start_command: 'x' }, 'validation failed', 'body.dir'],
      [
        'unknown field',
        { dir: join(s.root, 'a'), start_command: 'x', color: 'red' },
        'validation failed',
        'body.color',
      ],
      ['wrong type', { dir: 5, start_command: 'x' }, 'validation failed', 'body.dir'],
      [
        'both provider and start_command',
        { dir: join(s.root, 'a'), provider: 'claude', start_command: 'x' },
        'invalid provider: provider and start_command are mutually exclusive',
        'body.provider',
      ],
      [
        'neither',
        { dir: join(s.root, 'a') },
        'invalid provider: provider or start_command required',
        'body.provider',
      ],
      [
        'unknown provider',
        { dir: join(s.root, 'a'), provider: 'vim' },
        'invalid provider: unknown provider "vim"',
        'body.provider',
      ],
      [
        'unknown bootstrap profile',
        { dir: join(s.root, 'a'), start_command: 'x', bootstrap_profile: 'mainframe' },
        'invalid bootstrap profile: unknown bootstrap profile "mainframe"',
        'body.bootstrap_profile',
      ],
      [
        'escapes $HOME',
        { dir: '../outside', start_command: 'x' },
        'invalid city directory: dir escapes $HOME: "../outside"',
        'body.dir',
      ],
      [
        'is $HOME',
        { dir: 'x/..', start_command: 'x' },
        'invalid city directory: dir escapes $HOME: "x/.."',
        'body.dir',
      ],
      [
        'under a file',
        { dir: join(s.root, 'file', 'city'), start_command: 'x' },
        `invalid city directory: not a directory: "${join(s.root, 'file')}"`,
        'body.dir',
      ],
      [
        'invalid name',
        { dir: join(s.root, '-dash'), start_command: 'x' },
        "invalid city directory: invalid city name \"-dash\": use letters, digits, '.', '_' or '-'",
        'body.dir',
      ],
    ];
    for (const [name, body, detail, location] of cases) {
      const res = await s.call('POST', '/v0/city', body);
      t.equal(res.status, 422, name);
      t.equal(res.body.detail, detail, name);
      t.match(res.headers.get('content-type'), /^application\/problem\+json/, name);
      if (location)
        t.ok(
          res.body.errors?.some((e: { location: string }) => e.location === location),
          `${name}: errors[] names ${location}`,
        );
    }
    if (process.getuid?.() !== 0) {
      const ro = join(s.root, 'readonly');
      mkdirSync(ro);
      chmodSync(ro, 0o555);
      const res = await s.call('POST', '/v0/city', { dir: join(ro, 'city'), start_command: 'x' });
      t.equal(res.status, 422);
      t.equal(res.body.detail, `invalid city directory: directory is not writable: "${ro}"`);
    }
    t.notOk(existsSync(join(s.root, 'a')), 'nothing was scaffolded');
    t.same(
      (await s.log.list()).map((e) => e.type),
      ['supervisor.started'],
      'nothing was recorded',
    );
  });

  t.test(
    'register (ours): an existing city directory, again after an unregister; start (ours) brings a stopped city back',
    async (t) => {
      const s = await start(t);
      const bare = join(s.root, 'bare');
      mkdirSync(bare);
      const none = await s.call('POST', '/v0/cities/register', { dir: bare });
      t.equal(none.status, 422);
      t.equal(
        none.body.detail,
        `invalid city directory: ${bare} is not a city directory (no city.toml found)`,
      );
      t.notOk(existsSync(join(bare, '.gc')), 'a refused register writes nothing');

      const dir = join(s.root, 'iota');
      mkdirSync(dir);
      writeFileSync(join(dir, 'city.toml'), '[workspace]\nname = "lab"\nstart_command = "x"\n');
      const reg = await s.call('POST', '/v0/cities/register', { dir });
      t.equal(reg.status, 202, JSON.stringify(reg.body));
      const done = await waitForTerminal(s.log, reg.body.request_id);
      t.equal(done.type, 'request.result.city.create');
      t.match((await s.call('GET', '/v0/cities')).body.items, [{ name: 'lab', path: dir, running: true }]);
      t.ok(existsSync(join(dir, '.gc', 'events.jsonl')), 'the runtime tree and log are completed');
      const again = await s.call('POST', '/v0/cities/register', { dir });
      t.equal(again.status, 409);
      t.equal(again.body.detail, `conflict: city already registered with supervisor: lab (${dir})`);

      t.equal((await s.call('POST', '/v0/city/nobody/start')).status, 404);
      t.same(
        (await s.call('POST', '/v0/city/lab/start')).body,
        { status: 'ok' },
        'a running city: ok at once',
      );
      await s.call('POST', '/v0/city/lab/stop');
      const started = await s.call('POST', '/v0/city/lab/start');
      t.same([started.status, started.body], [200, { status: 'ok' }]);
      t.match((await s.call('GET', '/v0/cities')).body.items, [
        { name: 'lab', running: true, status: 'running' },
      ]);

      const unreg = await s.call('POST', '/v0/city/lab/unregister');
      await waitForTerminal(s.log, unreg.body.request_id);
      // Registered again at once: the register waits for the unregistered city to leave, then the log goes on.
      const back = await s.call('POST', '/v0/cities/register', { dir });
      t.equal(back.status, 202, JSON.stringify(back.body));
      t.equal((await waitForTerminal(s.log, back.body.request_id)).type, 'request.result.city.create');
      t.match((await s.call('GET', '/v0/cities')).body.items, [{ name: 'lab', running: true }]);
      const types = ((await s.call('GET', '/v0/city/lab/events')).body.items as Array<{ type: string }>).map(
        (e) => e.type,
      );
      t.same(types.filter((x) => x === 'city.created').length, 2, 'one city.created per registration');
      t.equal(
        types.filter((x) => x === 'controller.started').length,
        3,
        'started, restarted, registered again',
      );

      // The log replays through both registrations: after a restart the city is registered and runs.
      await s.close();
      const restarted = await start(t, { root: s.root });
      await eventually(
        async () => (await restarted.call('GET', '/v0/cities')).body.items[0]?.running === true,
      );
      t.match((await restarted.call('GET', '/v0/cities')).body.items, [{ name: 'lab', path: dir }]);
    },
  );

  t.test('concurrent creates of one directory: one 202, the rest 409', async (t) => {
    const s = await start(t);
    const dir = join(s.root, 'race');
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => s.call('POST', '/v0/city', { dir, start_command: 'x' })),
    );
    t.same(replies.map((r) => r.status).sort(), [202, 409, 409, 409, 409]);
  });

  t.test('create answers 503 when the provider or a hard dependency is missing', async (t) => {
    const s = await start(t, { options: { hardDependencies: ['sh', 'dolt'] } });
    const res = await s.call('POST', '/v0/city', { dir: join(s.root, 'd'), start_command: 'x' });
    t.equal(res.status, 503);
    t.equal(res.body.detail, 'missing_dependency: required dependency "dolt" not found in PATH');
    const s2 = await start(t);
    const res2 = await s2.call('POST', '/v0/city', { dir: join(s2.root, 'd'), provider: 'claude' });
    t.equal(res2.status, 503);
    t.equal(
      res2.body.detail,
      'provider_not_ready: provider "claude" is not ready: claude executable not found in probe PATH',
    );
    t.notOk(existsSync(join(s2.root, 'd')));
    const s3 = await start(t, {
      options: { host: fakeHost(join(s2.root, 'home'), { bins: ['sh', 'cursor-agent'] }) },
    });
    const res3 = await s3.call('POST', '/v0/city', { dir: join(s3.root, 'd'), provider: 'cursor' });
    t.equal(res3.status, 202, 'an installed provider is enough');
  });

  t.test('a start that fails ends the create with request.failed and shows the error', async (t) => {
    const s = await start(t, {
      options: {
        services: [
          {
            name: 'beads',
            phase: 'starting_bead_store',
            start: () => Promise.reject(new Error('bead store refused to open')),
          },
        ],
      },
    });
    const res = await s.call('POST', '/v0/city', { dir: join(s.root, 'delta'), start_command: 'x' });
    t.equal(res.status, 202);
    const terminal = await waitForTerminal(s.log, res.body.request_id);
    // The recorded causes are the merged stream's business (schemas/eventCauses.ts); the payload is the rest.
    t.same(withoutCauses(terminal.payload), {
      request_id: res.body.request_id,
      operation: 'city.create',
      error_code: 'city_init_failed',
      error_message: 'bead store refused to open',
    });
    t.match(terminal, { type: 'request.failed', actor: 'api', subject: 'delta' });
    const list = await s.call('GET', '/v0/cities');
    t.same(list.body.items, [
      {
        name: 'delta',
        path: join(s.root, 'delta'),
        running: false,
        status: 'failed',
        error: 'bead store refused to open',
        phases_completed: ['materializing_packs'],
      },
    ]);
    t.equal((await s.call('GET', '/v0/city/delta')).status, 404);
  });

  t.test('a scaffold that fails is rolled back', async (t) => {
    const s = await start(t);
    // The registry file cannot be replaced while a directory sits in its place.
    mkdirSync(join(s.gcHome, 'cities.toml'));
    const dir = join(s.root, 'epsilon');
    const res = await s.call('POST', '/v0/city', { dir, start_command: 'x' });
    t.equal(res.status, 500);
    t.match(res.body.detail, /^internal: creating city at /);
    t.notOk(existsSync(dir), 'the directory it created is gone');
    t.same((await s.call('GET', '/v0/cities')).body, { items: [], total: 0 });
    t.notOk(s.running.supervisor.live.get('epsilon'));
    t.notOk(
      (await s.log.list()).some((e) => e.type === 'request.accepted'),
      'no request was accepted',
    );
    // An existing directory keeps what it had.
    const kept = join(s.root, 'kept');
    mkdirSync(kept);
    writeFileSync(join(kept, 'notes.txt'), 'mine');
    t.equal((await s.call('POST', '/v0/city', { dir: kept, start_command: 'x' })).status, 500);
    t.same(
      existsSync(join(kept, 'notes.txt')) &&
        !existsSync(join(kept, '.gc')) &&
        !existsSync(join(kept, 'city.toml')),
      true,
    );
  });

  t.test('typed per-city routes answer 404 until the city runs', async (t) => {
    const starting = gate();
    const s = await start(t, { options: { services: [gatedService(starting)] } });
    const res = await s.call('POST', '/v0/city', { dir: join(s.root, 'zeta'), start_command: 'x' });
    t.equal(res.status, 202);
    const list = await s.call('GET', '/v0/cities');
    t.match(list.body.items[0], { name: 'zeta', running: false, status: 'starting_agents' });
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/v0/city/zeta'],
      ['GET', '/v0/city/zeta/status'],
      ['GET', '/v0/city/zeta/readiness'],
      ['GET', '/v0/city/zeta/provider-readiness'],
      ['PATCH', '/v0/city/zeta', { suspended: true }],
      ['POST', '/v0/city/zeta/stop'],
      ['GET', '/v0/city/nowhere'],
    ];
    for (const [method, path, body] of routes) {
      const r = await s.call(method, path, body);
      t.equal(r.status, 404, `${method} ${path}`);
      t.equal(
        r.body.detail,
        `not_found: city not found or not running: ${path.split('/')[3]}`,
        `${method} ${path}`,
      );
    }
    const svc = await s.call('POST', '/v0/city/zeta/svc/anything', { a: 1 });
    t.equal(svc.status, 404);
    t.equal(svc.body.detail, 'not_found: city not found or not running');
    starting.open();
    await waitForTerminal(s.log, res.body.request_id);
    t.equal((await s.call('GET', '/v0/city/zeta')).status, 200);
    const running = await s.call('GET', '/v0/city/zeta/svc/anything');
    t.equal(running.status, 404, 'a running city without that service');
    t.equal(running.body.detail, 'not_found: service route not found');
    t.equal(
      s.running.supervisor.live.get('zeta')!.services.gated !== undefined,
      true,
      'phase services reach LiveCity.services',
    );
  });

  t.test('a running city: detail, status, suspend and resume, stop', async (t) => {
    const s = await start(t);
    const dir = join(s.root, 'eta');
    const res = await s.call('POST', '/v0/city', { dir, start_command: 'x' });
    await waitForTerminal(s.log, res.body.request_id);
    const detail = await s.call('GET', '/v0/city/eta');
    t.same(detail.body, {
      name: 'eta',
      path: dir,
      suspended: false,
      uptime_sec: 0,
      agent_count: 0,
      rig_count: 0,
      version: '0.1.0',
    });
    const status = await s.call('GET', '/v0/city/eta/status');
    t.equal(status.status, 200);
    t.equal(status.headers.get('x-gc-index'), '2');
    t.match(status.body, { name: 'eta', path: dir, suspended: false, running: 0, agents: { total: 0 } });

    t.equal((await s.call('PATCH', '/v0/city/eta', {})).body.detail, 'no fields to update');
    t.equal((await s.call('PATCH', '/v0/city/eta', {})).status, 400);
    t.equal(
      (await s.call('PATCH', '/v0/city/eta', { suspended: true, x: 1 })).status,
      422,
      'unknown fields are refused',
    );
    const suspended = await s.call('PATCH', '/v0/city/eta', { suspended: true });
    t.same([suspended.status, suspended.body], [200, { status: 'ok' }]);
    t.equal((await s.call('GET', '/v0/city/eta')).body.suspended, true);
    // A blocking status query returns as soon as the log moves past `index`.
    const blocked = s.call('GET', '/v0/city/eta/status?index=3&wait=5s');
    await s.call('PATCH', '/v0/city/eta', { suspended: false });
    const woke = await blocked;
    t.equal(woke.headers.get('x-gc-index'), '4');
    t.equal((await s.call('GET', '/v0/city/eta/status?index=x')).status, 422);

    const readiness = await s.call('GET', '/v0/city/eta/readiness?items=github_cli');
    t.same([readiness.status, Object.keys(readiness.body.items)], [200, ['github_cli']]);
    const providers = await s.call('GET', '/v0/city/eta/provider-readiness');
    t.same(
      [providers.status, Object.keys(providers.body.providers).sort()],
      [200, ['claude', 'codex', 'gemini']],
    );

    const stopped = await s.call('POST', '/v0/city/eta/stop');
    t.same([stopped.status, stopped.body], [200, { status: 'ok' }]);
    t.same(
      (await s.running.supervisor.live.get('eta')!.journal.list()).map((e) => e.type),
      ['city.created', 'controller.started', 'city.suspended', 'city.resumed', 'controller.stopped'],
    );
    t.match((await s.call('GET', '/v0/cities')).body.items[0], { running: false, status: 'stopped' });
    t.equal((await s.call('GET', '/v0/city/eta')).status, 404);
  });

  t.test(
    'unregister: 404 for strangers, 202, events in order, one terminal before detach, dir untouched',
    async (t) => {
      const stopping = gate();
      const s = await start(t, { options: { services: [gatedService(undefined, stopping)] } });
      const unknown = await s.call('POST', '/v0/city/nobody/unregister');
      t.equal(unknown.status, 404);
      t.equal(unknown.body.detail, 'not_found: city not registered with supervisor: nobody');

      const dir = join(s.root, 'theta');
      const created = await s.call('POST', '/v0/city', { dir, start_command: 'x' });
      t.equal(created.status, 202);
      t.equal(
        (await s.call('POST', '/v0/city/theta/unregister')).status,
        409,
        'not while the create is pending',
      );
      await waitForTerminal(s.log, created.body.request_id);
      const sup = s.running.supervisor;
      const cityLog = sup.live.get('theta')!.journal;
      const headBefore = await s.log.head();
      const cityHead = await cityLog.head();

      let terminalAtDetach: number | undefined;
      sup.live.onChange((change) => {
        if (change.kind === 'detached' && change.city.name === 'theta') {
          void terminalsOf(s.log, res.body.request_id).then((ts) => (terminalAtDetach = ts.length));
        }
      });
      const res = await s.call('POST', '/v0/city/theta/unregister');
      t.equal(res.status, 202);
      t.match(res.body.request_id, REQUEST_ID);
      t.equal(res.body.event_cursor, `__supervisor__:${headBefore},theta:${cityHead}`);
      // At the 202: the request is recorded, the registry entry gone, the city log says so.
      t.notMatch(readFileSync(join(s.gcHome, 'cities.toml'), 'utf8'), /theta/);
      t.match((await cityLog.list()).at(-1), {
        type: 'city.unregister_requested',
        actor: 'gc',
        subject: 'theta',
        payload: { name: 'theta', path: dir },
      });
      t.same((await s.call('GET', '/v0/cities')).body.items, [], 'no longer listed');
      t.equal((await s.call('GET', '/v0/city/theta')).status, 404);
      const again = await s.call('POST', '/v0/city/theta/unregister');
      t.equal(again.status, 404, 'the registry entry is already gone');

      t.ok(sup.live.get('theta'), 'still attached while the controller stops');
      stopping.open();
      const terminal = await waitForTerminal(s.log, res.body.request_id);
      t.match(terminal, {
        type: 'request.result.city.unregister',
        actor: 'api',
        subject: 'theta',
        payload: { request_id: res.body.request_id, name: 'theta', path: dir },
      });
      await eventually(() => sup.live.get('theta') === undefined);
      await t.rejects(
        cityLog.append({ type: 'late.write', actor: 'test', payload: {} }),
        { code: 'journal_unavailable' },
        'the detached city log is closed: no handle is left open',
      );
      await eventually(() => terminalAtDetach !== undefined);
      t.equal(terminalAtDetach, 1, 'the terminal event was recorded before the city left LiveCities');
      await sup.settled();
      t.equal((await terminalsOf(s.log, res.body.request_id)).length, 1);
      t.same(
        (await cityEvents(natsUrl, 'theta', dir)).map((e) => e.type),
        ['city.created', 'controller.started', 'city.unregister_requested', 'controller.stopped'],
      );
      for (const p of ['city.toml', '.gc/events.jsonl', '.gc/cache'])
        t.ok(existsSync(join(dir, p)), `${p} untouched`);
    },
  );

  t.test('an unregister whose controller does not stop cleanly ends with request.failed', async (t) => {
    const s = await start(t, {
      options: {
        services: [
          {
            name: 'stuck',
            phase: 'validating_agents',
            start: async () => ({ service: {}, stop: () => Promise.reject(new Error('still busy')) }),
          },
        ],
      },
    });
    const created = await s.call('POST', '/v0/city', { dir: join(s.root, 'iota'), start_command: 'x' });
    await waitForTerminal(s.log, created.body.request_id);
    const res = await s.call('POST', '/v0/city/iota/unregister');
    t.equal(res.status, 202);
    const terminal = await waitForTerminal(s.log, res.body.request_id);
    // The recorded causes are the merged stream's business (schemas/eventCauses.ts); the payload is the rest.
    t.same(withoutCauses(terminal.payload), {
      request_id: res.body.request_id,
      operation: 'city.unregister',
      error_code: 'city_unregister_failed',
      error_message: 'stopping stuck: still busy',
    });
  });

  t.test('readiness probes answer per upstream and refuse unknown items', async (t) => {
    const root = join('/nonexistent', 'home');
    const host = fakeHost(root, {
      bins: ['sh', 'claude', 'codex', 'gh'],
      files: {
        [join(root, '.codex', 'auth.json')]: JSON.stringify({ auth_mode: 'chatgpt', tokens: { id: 'x' } }),
      },
      runs: {
        '/fake/bin/claude auth status --json': {
          code: 0,
          stdout: JSON.stringify({ loggedIn: true, authMethod: 'claude.ai', apiProvider: 'firstParty' }),
        },
        '/fake/bin/gh auth status': { code: 1, stdout: '' },
      },
    });
    const s = await start(t, { options: { host } });
    const all = await s.call('GET', '/v0/readiness');
    t.same(all.body.items, {
      claude: { name: 'claude', kind: 'provider', display_name: 'Claude Code', status: 'configured' },
      codex: { name: 'codex', kind: 'provider', display_name: 'Codex', status: 'configured' },
      gemini: {
        name: 'gemini',
        kind: 'provider',
        display_name: 'Gemini CLI',
        status: 'not_installed',
        detail: 'gemini executable not found in probe PATH',
      },
      github_cli: {
        name: 'github_cli',
        kind: 'tool',
        display_name: 'GitHub CLI',
        status: 'needs_auth',
        detail: 'gh is installed but not authenticated',
      },
    });
    const some = await s.call('GET', '/v0/provider-readiness?providers=codex,claude,codex&fresh=true');
    t.same(some.body, {
      providers: {
        codex: { display_name: 'Codex', status: 'configured' },
        claude: { display_name: 'Claude Code', status: 'configured' },
      },
    });
    const bad = await s.call('GET', '/v0/readiness?items=claude,emacs');
    t.same([bad.status, bad.body.detail], [400, 'invalid: unsupported items value "emacs"']);
    const badP = await s.call('GET', '/v0/provider-readiness?providers=github_cli');
    t.same([badP.status, badP.body.detail], [400, 'invalid: unsupported providers value "github_cli"']);
  });

  t.test('city mutations need X-GC-Request', async (t) => {
    const s = await start(t);
    for (const [method, path] of [
      ['POST', '/v0/city'],
      ['POST', '/v0/city/x/unregister'],
      ['POST', '/v0/city/x/stop'],
      ['PATCH', '/v0/city/x'],
    ] as const) {
      const r = await s.call(method, path, {}, { 'x-gc-request': '' });
      t.equal(r.status, 403, `${method} ${path}`);
      t.equal(r.body.detail, 'csrf: X-GC-Request header required on mutation endpoints');
    }
  });

  t.test('the OpenAPI document covers every city operation', async (t) => {
    const s = await start(t);
    const doc = (await s.call('GET', '/openapi.json')).body;
    const ops = new Map<string, string>();
    for (const [path, item] of Object.entries(
      doc.paths as Record<string, Record<string, { operationId?: string }>>,
    )) {
      for (const [method, op] of Object.entries(item))
        if (op.operationId) ops.set(op.operationId, `${method.toUpperCase()} ${path}`);
    }
    const expected: Record<string, string> = {
      'get-health': 'GET /health',
      'get-v0-readiness': 'GET /v0/readiness',
      'get-v0-provider-readiness': 'GET /v0/provider-readiness',
      'get-v0-cities': 'GET /v0/cities',
      'post-v0-city': 'POST /v0/city',
      'get-v0-city-by-city-name': 'GET /v0/city/{cityName}',
      'patch-v0-city-by-city-name': 'PATCH /v0/city/{cityName}',
      'get-v0-city-by-city-name-status': 'GET /v0/city/{cityName}/status',
      'get-v0-city-by-city-name-readiness': 'GET /v0/city/{cityName}/readiness',
      'get-v0-city-by-city-name-provider-readiness': 'GET /v0/city/{cityName}/provider-readiness',
      'post-v0-city-by-city-name-stop': 'POST /v0/city/{cityName}/stop',
      'post-v0-city-by-city-name-unregister': 'POST /v0/city/{cityName}/unregister',
      'post-v0-city-by-city-name-start': 'POST /v0/city/{cityName}/start',
      'post-v0-cities-register': 'POST /v0/cities/register',
    };
    for (const [id, route] of Object.entries(expected)) t.equal(ops.get(id), route, id);
    t.notOk(
      Object.keys(doc.paths).some((p) => p.includes('/svc')),
      'the svc proxy is outside the typed surface',
    );
  });

  t.test('registry, cities and requests survive a restart', async (t) => {
    const s = await start(t);
    const dir = join(s.root, 'kappa');
    const res = await s.call('POST', '/v0/city', { dir, start_command: 'x' });
    await waitForTerminal(s.log, res.body.request_id);
    await s.call('PATCH', '/v0/city/kappa', { suspended: true });
    await s.close();
    const again = await start(t, { root: s.root });
    await eventually(async () => (await again.call('GET', '/v0/cities')).body.items[0]?.running === true);
    t.equal(
      (await again.call('GET', '/v0/city/kappa')).body.suspended,
      true,
      'suspension is replayed from the city log',
    );
    const types = (await again.log.list()).map((e) => e.type);
    t.same(types, [
      'supervisor.started',
      'request.accepted',
      'request.result.city.create',
      'supervisor.stopped',
      'supervisor.started',
    ]);
    t.same((await again.log.list()).at(-1)!.payload, { previous_exit: 'clean' });
    t.equal(
      (await terminalsOf(again.log, res.body.request_id)).length,
      1,
      'no second terminal after the restart',
    );
  });

  t.test('event_cursor names every log in LiveCities at capture time, not the new city', async (t) => {
    const s = await start(t);
    const a = await s.call('POST', '/v0/city', { dir: join(s.root, 'lam'), start_command: 'x' });
    await waitForTerminal(s.log, a.body.request_id);
    const supHead = await s.log.head();
    const b = await s.call('POST', '/v0/city', { dir: join(s.root, 'mu'), start_command: 'x' });
    t.equal(b.body.event_cursor, `__supervisor__:${supHead},lam:2`);
  });
}
