import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { workCity } from '../work/helpers.ts';

/**
 * `gc order run <name> [--rig R]` (the built binary) against a real supervisor: it bypasses the trigger
 * and goes through the scheduler's own firing path (POST /order/{name}/run). A formula order cooks a wisp
 * labelled `order-run:<scoped-name>` routed to its pool; an exec order prints its command's output, then
 * `Order "<n>" executed (exec)`; its run is recorded in the order's history either way.
 */

t.setTimeout(120_000);

type Bead = { id: string; labels?: string[]; metadata?: Record<string, string>; title: string };

t.test('gc order run', async (t) => {
  const city = await workCity(t, { runtime: 'subprocess' });
  await mkdir(join(city.dir, 'formulas'), { recursive: true });
  await mkdir(join(city.dir, 'orders'), { recursive: true });
  await writeFile(
    join(city.dir, 'formulas', 'mol-sweep.toml'),
    'formula = "mol-sweep"\ndescription = "Sweep"\nversion = 2\n\n[[steps]]\nid = "sweep"\ntitle = "Sweep the floor"\n',
  );
  // Triggers that would not fire for a year: only `run` can fire them now.
  await writeFile(
    join(city.dir, 'orders', 'sweep.toml'),
    '[order]\nformula = "mol-sweep"\ntrigger = "cooldown"\ninterval = "8760h"\npool = "worker"\n',
  );
  await writeFile(
    join(city.dir, 'orders', 'solo.toml'),
    '[order]\nformula = "mol-sweep"\ntrigger = "manual"\n',
  );
  await writeFile(
    join(city.dir, 'orders', 'ping.toml'),
    '[order]\nexec = "echo pong; echo warm >&2"\ntrigger = "cron"\nschedule = "0 3 29 2 *"\n',
  );
  await writeFile(
    join(city.dir, 'orders', 'fail.toml'),
    '[order]\nexec = "echo half; exit 4"\ntrigger = "manual"\n',
  );
  await writeFile(
    join(city.dir, 'orders', 'onmail.toml'),
    '[order]\nformula = "mol-sweep"\ntrigger = "event"\non = "mail.sent"\n',
  );
  const bead = async (id: string): Promise<Bead> =>
    (await city.sup.call('GET', `/v0/city/${city.name}/bead/${id}`)).body as Bead;

  await t.test('a formula order cooks a wisp routed to its pool', async (t) => {
    const run = await city.gc(['order', 'run', 'sweep']);
    t.equal(run.code, 0, run.stderr);
    const m = /^Order "sweep" executed: wisp (\S+) → gc\.routed_to=worker\n$/.exec(run.stdout);
    t.ok(m, run.stdout);
    const root = await bead(m![1]!);
    t.ok(root.labels?.includes('order-run:sweep'), JSON.stringify(root.labels));
    t.equal(root.metadata?.['gc.routed_to'], 'worker');
    const history = await city.gc(['order', 'history', 'sweep']);
    t.match(history.stdout, m![1]!, 'the run is in the order’s history');
    const again = await city.gc(['order', 'run', 'sweep']);
    t.equal(again.code, 0, 'the cooldown does not hold a manual run back');
    t.not(/wisp (\S+)/.exec(again.stdout)?.[1], m![1], 'a second wisp');
  });

  await t.test('without a pool the line has no route', async (t) => {
    const run = await city.gc(['order', 'run', 'solo']);
    t.equal(run.code, 0, run.stderr);
    t.match(run.stdout, /^Order "solo" executed: wisp \S+\n$/);
  });

  await t.test('an exec order prints its output, then the executed line', async (t) => {
    const run = await city.gc(['order', 'run', 'ping']);
    t.same([run.code, run.stdout, run.stderr], [0, 'pong\nOrder "ping" executed (exec)\n', 'warm\n']);
    const entries = (
      (await city.sup.call('GET', `/v0/city/${city.name}/orders/history?scoped_name=ping`)).body as {
        entries: { bead_id: string }[];
      }
    ).entries;
    t.equal(entries.length, 1, 'one run recorded');
    const tracking = await bead(entries[0]!.bead_id);
    t.ok(tracking.labels?.includes('order-tracking'));
  });

  await t.test('a failing command is an error after its output', async (t) => {
    const run = await city.gc(['order', 'run', 'fail']);
    t.same([run.code, run.stdout, run.stderr], [1, 'half\n', 'gc order run: order "fail": exit status 4\n']);
  });

  await t.test('an event order’s run marks the events seen so far (seq:<n>)', async (t) => {
    const sent = await city.gc(['mail', 'send', 'human', '-s', 'hello', '-m', 'for the order']);
    t.equal(sent.code, 0, sent.stderr);
    const mails = (await city.gc(['events', '--type', 'mail.sent'])).stdout.trim().split('\n');
    const mailSeq = (JSON.parse(mails.at(-1)!) as { seq: number }).seq;
    const run = await city.gc(['order', 'run', 'onmail']);
    t.equal(run.code, 0, run.stderr);
    const entries = (
      (await city.sup.call('GET', `/v0/city/${city.name}/orders/history?scoped_name=onmail`)).body as {
        entries: { bead_id: string }[];
      }
    ).entries;
    const labels = (await Promise.all(entries.map((e) => bead(e.bead_id)))).flatMap((b) => b.labels ?? []);
    t.ok(labels.includes('order-tracking'), JSON.stringify(labels));
    t.ok(
      labels.includes(`seq:${mailSeq}`),
      `seq:${mailSeq}, the newest mail.sent: ${JSON.stringify(labels)}`,
    );
  });

  await t.test('refusals: an unknown order, a rig that has no such order', async (t) => {
    const unknown = await city.gc(['order', 'run', 'nope']);
    t.equal(unknown.code, 1);
    t.match(unknown.stderr, /^gc order run: not_found: .*nope.*\n$/);
    const rig = await city.gc(['order', 'run', 'sweep', '--rig', 'ghost']);
    t.equal(rig.code, 1);
    t.match(rig.stderr, /^gc order run: not_found: .*sweep:rig:ghost.*\n$/);
  });
});
