/**
 * Shared set-up of the sessions end-to-end tests. Sessions end to end: a real supervisor over HTTP, the real tmux runtime (a private server per city,
 * named after this test's GC_HOME) and the repository's mock agent. Async operations are followed on the
 * city event stream from the 202's event_cursor, as the spec's client flow does.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { beadStoreService } from '../../actors/beads/index.ts';
import { sessionServiceFactory } from '../../actors/sessions/startSessionService.ts';
import { tmuxSocketFor } from '../../schemas/sessionRuntime.ts';
import { openSse } from '../helpers/sse.ts';
import {
  eventually,
  fakeHost,
  startTestSupervisor,
  waitForTerminal,
  type TestSupervisor,
} from '../helpers/supervisor.ts';

export const UPSTREAM_OPENAPI = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'shared',
  'reference',
  'upstream-openapi.json',
);

export function hasTmux(): boolean {
  try {
    execFileSync('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
}

export interface Env {
  s: TestSupervisor;
  base: string;
  logDir: string;
}

export async function cityWithMock(t: Test, root?: string, extra: Record<string, number> = {}): Promise<Env> {
  const probe = await startTestSupervisor(t, { tickMs: 200, ...(root ? { root } : {}) });
  await probe.close();
  const logDir = join(probe.root, 'agent-logs');
  const services = [
    beadStoreService,
    sessionServiceFactory({
      runtime: 'tmux',
      thresholds: {
        tickMs: 100,
        stabilityMs: 2_000,
        backoffBaseMs: 50,
        backoffMaxMs: 200,
        drainTimeoutMs: 1_000,
        ...extra,
      },
      env: { GC_MOCK_LOG_DIR: logDir },
    }),
  ];
  const s = await startTestSupervisor(t, {
    tickMs: 200,
    root: probe.root,
    options: { services, host: fakeHost(probe.home, { bins: ['sh', 'node'] }) },
  });
  t.teardown(() => {
    const socket = tmuxSocketFor('port', s.gcHome);
    try {
      execFileSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
    } catch {
      // no server left
    }
  });
  if (!existsSync(join(s.home, 'port', 'city.toml'))) {
    const res = await s.call('POST', '/v0/city', { dir: join(s.home, 'port'), provider: 'mock' });
    t.equal(res.status, 202, `city create answered ${JSON.stringify(res.body)}`);
    const done = await waitForTerminal(s.log, res.body.request_id, 20_000);
    t.equal(done.type, 'request.result.city.create');
  }
  await eventually(async () => (await s.call('GET', '/v0/city/port/sessions')).status === 200, 20_000);
  return { s, base: '/v0/city/port', logDir };
}

/** Follows the city stream from `afterSeq` until the terminal event of `requestId`. */
export async function terminalOnStream(env: Env, afterSeq: string, requestId: string, timeoutMs = 30_000) {
  const sse = await openSse(`${env.s.url}${env.base}/events/stream?after_seq=${afterSeq}`);
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const frame = await sse.nextEvent(Math.max(1, deadline - Date.now()));
      if (frame.event !== 'event') continue;
      const ev = JSON.parse(frame.data) as { type: string; payload: Record<string, unknown> };
      if (ev.payload?.request_id !== requestId) continue;
      if (ev.type === 'request.failed' || ev.type.startsWith('request.result.')) return ev;
    }
  } finally {
    sse.close();
  }
}

export function conversation(logDir: string): string {
  if (!existsSync(logDir)) return '';
  return readdirSync(logDir)
    .map((f) => readFileSync(join(logDir, f), 'utf8'))
    .join('');
}
