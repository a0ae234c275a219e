import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { findNatsServer, startNatsServer } from '../helpers/natsServer.ts';
import { hasTmux } from '../sessions/e2eKit.ts';
import { workCity, type WorkCity } from './helpers.ts';

/**
 * The work loop end to end on a real supervisor with tmux and the mock agent in worker mode: a convoy of
 * 20 beads slung to a pool of 4 polecats; every bead goes open → in_progress → closed once, by an agent,
 * through the hooks gc installed; the convoy closes; the mayor gets every report by mail. A polecat killed
 * mid-bead is restarted and finishes that bead, once. Run twice: tmux sessions on the file journal, and
 * subprocess sessions on JetStream (its own nats-server), so each runtime and each journal carries it.
 */

t.setTimeout(600_000);

const VARIANTS = [
  { runtime: 'subprocess', journal: 'jetstream' },
  { runtime: 'tmux', journal: 'file' },
] as const;

type Ev = {
  seq: number;
  type: string;
  subject?: string;
  actor?: string;
  payload?: { bead?: { status?: string } };
};

/** Polls `check` every 250 ms (each poll is an HTTP call or a CLI run: not a busy loop). */
async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function events(city: WorkCity): Promise<Ev[]> {
  const out: Ev[] = [];
  let cursor = '';
  for (;;) {
    const q = `limit=1000${cursor ? `&cursor=${cursor}` : ''}`;
    const body = (await city.sup.call('GET', `/v0/city/${city.name}/events?${q}`)).body as {
      items: Ev[];
      next_cursor?: string;
    };
    out.push(...body.items);
    if (!body.next_cursor) break;
    cursor = body.next_cursor;
  }
  return out.sort((a, b) => a.seq - b.seq);
}

const missing = [hasTmux() ? '' : 'tmux', findNatsServer() ? '' : 'nats-server'].filter((m) => m);
if (missing.length > 0) {
  if (process.env.CI) t.fail(`${missing.join(' and ')} not on PATH; CI must install them (.ci/run)`);
  else t.plan(0, `${missing.join(' and ')} not on PATH: the work loop is not tested end to end here`);
} else {
  for (const variant of VARIANTS)
    t.test(
      `20 beads through a pool of 4 mock polecats, one killed mid-bead (${variant.runtime}, ${variant.journal} journal)`,
      async (t) => {
        let natsUrl: string | undefined;
        if (variant.journal === 'jetstream') {
          const nats = await startNatsServer();
          t.teardown(() => nats.destroy());
          natsUrl = nats.url;
        }
        const city = await workCity(t, {
          runtime: variant.runtime,
          natsUrl,
          supervisorEnv: {
            GC_MOCK_WORKER: '1',
            GC_MOCK_SETTINGS: '${GC_CITY_RUNTIME_DIR}/settings.json',
            GC_MOCK_POLL_MS: '300',
            GC_MOCK_WORK_MS: '800',
          },
        });
        appendFileSync(
          join(city.dir, 'city.toml'),
          '\n[[agent]]\nname = "polecat"\nprovider = "mock"\nmax_active_sessions = 4\n',
        );
        // A hand-edited city.toml is read at start: restart the supervisor (the city comes back).
        await city.sup.stop('SIGTERM');
        await city.sup.start();
        await until(
          async () => (await city.sup.call('GET', `/v0/city/${city.name}/agents`)).status === 200,
          30_000,
        );

        const ids: string[] = [];
        for (let i = 1; i <= 20; i++)
          ids.push((await city.bd(['create', `Task ${i}`, '--silent'])).stdout.trim());
        const made = await city.gc(['convoy', 'create', 'batch', ...ids]);
        t.equal(made.code, 0, made.stderr);
        const convoyId = /^Created convoy (\S+) "batch" tracking 20 issue\(s\)\n$/.exec(made.stdout)?.[1];
        t.ok(convoyId, made.stdout);
        for (const id of ids) {
          const slung = await city.gc(['sling', 'polecat', id]);
          t.equal(slung.code, 0, slung.stderr);
        }

        // Kill the first polecat seen holding a bead, mid-bead; it comes back and finishes that bead.
        type B = { id: string; status: string; assignee?: string };
        let victim: B | undefined;
        const beads = async (q: string): Promise<B[]> =>
          ((await city.sup.call('GET', `/v0/city/${city.name}/beads?limit=1000&${q}`)).body as { items: B[] })
            .items;
        const diagnose = async (e: Error): Promise<never> => {
          const sessions = (await city.sup.call('GET', `/v0/city/${city.name}/sessions`)).body;
          const peek = await city.gc(['session', 'list']);
          throw new Error(
            `${e.message}\nbeads: ${JSON.stringify(await beads('all=true'))}\nsessions: ${JSON.stringify(sessions)}\n${peek.stdout}\nlog: ${city.sup.log().slice(-3000)}`,
          );
        };
        // The victim: a bead in progress in an active session (a surplus session may be closing meanwhile).
        type S = { id: string; session_name: string; state: string };
        let target: S | undefined;
        // The kill is part of the search: a worker can finish its bead and its shrinking pool close its
        // session between the look and the kill (`session … is closed`); then another victim is chosen.
        let killed = { code: -1 as number | null, stderr: '' };
        await until(async () => {
          const sessions = (
            (await city.sup.call('GET', `/v0/city/${city.name}/sessions`)).body as { items: S[] }
          ).items.filter((s) => s.state === 'active');
          for (const b of await beads('status=in_progress')) {
            target = ids.includes(b.id) ? sessions.find((s) => s.session_name === b.assignee) : undefined;
            if (!target) continue;
            victim = b;
            killed = await city.gc(['session', 'kill', target.id]);
            if (killed.code === 0 || !/ is closed/.test(killed.stderr)) return true;
          }
          return false;
        }, 60_000).catch(diagnose);
        t.pass(`${victim!.id} is held by ${target!.session_name} (bd's actor is the session's runtime name)`);
        t.equal(killed.code, 0, killed.stderr);

        await until(
          async () => (await beads('')).filter((b) => ids.includes(b.id)).length === 0,
          180_000,
        ).catch(diagnose);

        const all = JSON.parse((await city.bd(['list', '--all', '--json', '--limit', '0'])).stdout) as B[];
        for (const id of ids) {
          const b = all.find((x) => x.id === id);
          t.match(b, { status: 'closed', assignee: /\S/ }, `${id} closed by the session that claimed it`);
        }
        t.equal(
          all.find((b) => b.id === victim!.id)?.assignee,
          victim!.assignee,
          'the killed polecat finished its bead',
        );

        const evs = await events(city);
        let released = 0;
        for (const id of ids) {
          const steps = evs
            .filter((e) => e.subject === id && /^bead\.(created|updated|closed)$/.test(e.type))
            .map((e) => `${e.type}:${e.payload?.bead?.status}`);
          t.same(
            steps.filter((s) => s === 'bead.closed:closed'),
            ['bead.closed:closed'],
            `${id} closed once`,
          );
          // The statuses the bead went through (repeats folded): open → in_progress → closed. A claim may
          // be given back once when a surplus session is closed between its hook and its claim (releaseHeld,
          // by actor gc): then open → in_progress again, and that is counted, never a second close.
          const statuses = evs
            .filter((e) => e.subject === id && /^bead\.(created|updated|closed)$/.test(e.type))
            .map((e) => ({ status: e.payload?.bead?.status, actor: e.actor }))
            .filter((e, i, a) => i === 0 || e.status !== a[i - 1]!.status);
          const releases = statuses.filter((e, i) => i > 0 && e.status === 'open').length;
          t.ok(
            statuses.slice(1).every((e) => e.status !== 'open' || e.actor === 'gc'),
            `${id}: only gc gives a claim back`,
          );
          released += releases;
          t.same(
            statuses.map((e) => e.status),
            [
              'open',
              ...Array.from({ length: releases }, () => ['in_progress', 'open']).flat(),
              'in_progress',
              'closed',
            ],
            `${id}: open → in_progress → closed, in order`,
          );
        }
        t.comment(`claims given back by surplus closes: ${released}`);

        let convoyStatus = '';
        await until(async () => {
          convoyStatus = (await city.gc(['convoy', 'status', convoyId!])).stdout;
          return /^Status: +closed$/m.test(convoyStatus);
        }, 30_000).catch((e: Error) => {
          throw new Error(`${e.message}: the convoy is\n${convoyStatus}`);
        });
        t.pass('the convoy closed with its last bead');

        const inbox = await city.gc(['mail', 'inbox', 'mayor']);
        for (const id of ids)
          t.match(inbox.stdout, new RegExp(`polecat-\\d+\\s+Done: ${id}\\s`), `report on ${id}`);
      },
    );
}
