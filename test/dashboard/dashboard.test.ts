/**
 * The dashboard in a real browser: Debian's chromium driven by playwright-core, on pages served by a real
 * supervisor. Waits are the page's own state (playwright's locators), never sleeps.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { loadConfig } from '../../actors/supervisor/supervisorConfig.ts';
import { beadStoreService } from '../../actors/beads/index.ts';
import { sessionServiceFactory } from '../../actors/sessions/startSessionService.ts';
import { runSupervisor, type RunningSupervisor } from '../../http/main.ts';
import { tmuxSocketFor } from '../../schemas/sessionRuntime.ts';
import { eventually, fakeHost, waitForTerminal } from '../helpers/supervisor.ts';
import { launchChromium, newPage } from './browser.ts';

interface Harness {
  root: string;
  home: string;
  gcHome: string;
  start(port?: number): Promise<RunningSupervisor>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
  call(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

/** A supervisor that can be stopped and started again on the same port and home (the page stays open). */
function harness(t: Test, withSessions: boolean): Harness {
  const root = mkdtempSync(join(tmpdir(), 'gc-dash-'));
  const home = join(root, 'home');
  const gcHome = join(root, 'gchome');
  mkdirSync(home, { recursive: true });
  const services = withSessions
    ? [
        beadStoreService,
        sessionServiceFactory({
          runtime: 'tmux',
          thresholds: { tickMs: 100, stabilityMs: 2_000, backoffBaseMs: 50, backoffMaxMs: 200 },
          env: { GC_MOCK_LOG_DIR: join(root, 'agent-logs') },
        }),
      ]
    : [beadStoreService];
  const running: RunningSupervisor[] = [];
  t.teardown(async () => {
    for (const r of running) await r.close();
    if (withSessions) {
      try {
        execFileSync('tmux', ['-L', tmuxSocketFor('dock', gcHome), 'kill-server'], { stdio: 'ignore' });
      } catch {
        // no tmux server left
      }
    }
    rmSync(root, { recursive: true, force: true });
  });
  return {
    root,
    home,
    gcHome,
    async start(port = 0) {
      const config = loadConfig({
        GC_HOME: gcHome,
        GC_PORT: String(port),
        GC_BIND: '127.0.0.1',
        GC_TICK: '200ms',
        GC_HEARTBEAT: '1s',
      });
      const r = await runSupervisor(config, {
        services,
        host: fakeHost(home, { bins: ['sh', 'node'] }),
        logger: pino({ level: 'silent' }),
      });
      running.push(r);
      return r;
    },
    async call(url, method, path, body) {
      const res = await fetch(url + path, {
        method,
        headers: {
          ...(method === 'GET' ? {} : { 'x-gc-request': 'test' }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
  };
}

/** The dashboard's row key of harbor's newest bead.created event (as web/dashboard.js builds it). */
async function lastBeadKey(h: Harness, url: string): Promise<string> {
  const e = (await h.call(url, 'GET', '/v0/city/harbor/events?type=bead.created')).body.items.at(-1);
  return `harbor:${e.seq}:${e.type}:${e.ts}`;
}

function hasTmux(): boolean {
  try {
    execFileSync('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
}

t.test(
  'shows a city created through the API, a live event without a reload, and resumes after a restart without a duplicate',
  async (t) => {
    const browser = await launchChromium(t);
    if (!browser) return;
    const h = harness(t, false);
    let sup = await h.start();
    const url = sup.url;
    const port = Number(new URL(url).port);

    const page = await newPage(t, browser);
    await page.goto(`${url}/dashboard/`);
    await page
      .locator('#stream-status[data-status=live]')
      .or(page.locator('#cities td.muted'))
      .first()
      .waitFor();

    const created = await h.call(url, 'POST', '/v0/city', { dir: join(h.home, 'harbor'), provider: 'mock' });
    t.equal(created.status, 202);
    await waitForTerminal(sup.supervisor.log.journal, created.body.request_id, 10_000);
    const row = page.locator('#cities tr[data-city=harbor]');
    await row.filter({ hasText: 'running' }).waitFor({ timeout: 15_000 });
    t.match(await row.innerText(), /harbor\s+running\s+yes/, 'the city is shown with its status');
    await page.locator('#stream-status[data-status=live]').waitFor({ timeout: 15_000 });

    const bead = await h.call(url, 'POST', '/v0/city/harbor/beads', { title: 'load the cargo' });
    t.equal(bead.status, 201, JSON.stringify(bead.body));
    const firstKey = await lastBeadKey(h, url);
    await page.locator(`#event-rows tr[data-key="${firstKey}"]`).waitFor({ timeout: 10_000 });
    t.pass('the bead.created event appeared without a reload');
    await page.locator('#beads').getByText('load the cargo').waitFor({ timeout: 10_000 });
    t.pass('and the bead is listed');

    await sup.close();
    await page.locator('#stream-status[data-status=reconnecting]').waitFor({ timeout: 10_000 });
    t.pass('the page shows that it is reconnecting');
    sup = await h.start(port);
    await page.locator('#stream-status[data-status=live]').waitFor({ timeout: 20_000 });
    await eventually(
      async () => (await h.call(url, 'GET', '/v0/cities')).body.items?.[0]?.running === true,
      15_000,
    );

    const second = await h.call(url, 'POST', '/v0/city/harbor/beads', { title: 'after the restart' });
    t.equal(second.status, 201);
    const secondKey = await lastBeadKey(h, url);
    await page.locator(`#event-rows tr[data-key="${secondKey}"]`).waitFor({ timeout: 15_000 });
    t.pass('an event after the restart arrives on the resumed stream');
    const keys = await page
      .locator('#event-rows tr')
      .evaluateAll((rows) => rows.map((r) => (r as unknown as { dataset: { key: string } }).dataset.key));
    t.equal(new Set(keys).size, keys.length, 'no event is shown twice');
    t.equal(
      await page.locator('body').getAttribute('data-duplicate-keys'),
      null,
      'and none was received twice',
    );
    t.equal(keys.filter((k) => k === firstKey).length, 1, 'the event from before the restart is there once');
    t.ok(
      keys.some((k) => k.startsWith('__supervisor__:')),
      'the restart’s own supervisor events arrived too',
    );
    await page.close();
  },
);

if (!hasTmux()) {
  if (process.env.CI) t.fail('tmux is not on PATH; CI must install it (.ci/run)');
  else t.test('a session reply in the transcript', (t) => t.plan(0, 'tmux is not on PATH'));
} else {
  t.test("a session's reply appears in its transcript, sent from the page", async (t) => {
    const browser = await launchChromium(t);
    if (!browser) return;
    const h = harness(t, true);
    const sup = await h.start();
    const url = sup.url;
    const created = await h.call(url, 'POST', '/v0/city', { dir: join(h.home, 'dock'), provider: 'mock' });
    t.equal(created.status, 202);
    await waitForTerminal(sup.supervisor.log.journal, created.body.request_id, 20_000);
    await eventually(async () => (await h.call(url, 'GET', '/v0/city/dock/sessions')).status === 200, 20_000);
    const session = await h.call(url, 'POST', '/v0/city/dock/sessions', { alias: 'deckhand' });
    t.equal(session.status, 202);

    const page = await newPage(t, browser);
    await page.goto(`${url}/dashboard/`);
    await page.locator('#cities tr[data-city=dock]').click();
    const row = page.locator('#sessions tr[data-session]').filter({ hasText: 'deckhand' });
    await row.filter({ hasText: 'active' }).waitFor({ timeout: 20_000 });
    await row.click();
    await page.locator('#message input[name=message]').fill('hello from the dashboard');
    await page.locator('#message button').click();
    await page
      .locator('#transcript')
      .filter({ hasText: 'echo: hello from the dashboard' })
      .waitFor({ timeout: 20_000 });
    t.pass("the agent's reply is in the transcript (the message was a mutation with X-GC-Request)");
    await page.close();
  });
}
