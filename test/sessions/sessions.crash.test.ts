/**
 * Durability of session requests across SIGKILL: a real supervisor child process (tmux runtime, mock agent)
 * is killed right after answering 202 to a session create and to a message, then restarted on the same
 * home. Every accepted request ends with exactly one terminal event, and each session runs in exactly one
 * tmux session (adopted, never started twice).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { tmuxSocketFor } from '../../schemas/sessionRuntime.ts';
import { startSupervisorProcess, type SupervisorProcess } from '../helpers/supervisorProcess.ts';
import { eventually } from '../helpers/supervisor.ts';

const CITY = 'wharf';
const base = `/v0/city/${CITY}`;
const TERMINAL = (type: string) => type === 'request.failed' || type.startsWith('request.result.');

function hasTmux(): boolean {
  try {
    execFileSync('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
}

async function terminals(p: SupervisorProcess, requestId: string): Promise<{ type: string }[]> {
  const res = await p.call('GET', `${base}/events?limit=1000`);
  const items = (res.body.items ?? []) as { type: string; payload?: { request_id?: string } }[];
  return items.filter((e) => TERMINAL(e.type) && e.payload?.request_id === requestId);
}

function tmuxSessions(socket: string): string[] {
  try {
    return execFileSync('tmux', ['-L', socket, 'list-sessions', '-F', '#{session_name}'], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
}

if (!hasTmux()) {
  if (process.env.CI) t.fail('tmux is not on PATH; CI must install it (.ci/run)');
  else t.plan(0, 'tmux is not on PATH: session durability is not tested here');
} else {
  t.test(
    'SIGKILL after a session create and after a message: one terminal each, no second runtime',
    async (t) => {
      const p = await startSupervisorProcess(t, { tick: '200ms', env: { GC_SESSION_RUNTIME: 'tmux' } });
      const socket = tmuxSocketFor(CITY, p.home);
      t.teardown(() => {
        try {
          execFileSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
        } catch {
          // no server left
        }
      });
      const city = await p.call('POST', '/v0/city', { dir: join(p.cities, CITY), provider: 'mock' });
      t.equal(city.status, 202, JSON.stringify(city.body));
      await eventually(async () => (await p.call('GET', `${base}/sessions`)).status === 200, 30_000);

      const accepted: string[] = [];
      for (let round = 0; round < 2; round++) {
        const created = await p.call('POST', `${base}/sessions`, { title: `round ${round}` });
        t.equal(created.status, 202);
        accepted.push(created.body.request_id as string);
        await p.stop('SIGKILL');
        await p.start();
        // The city starts again after the supervisor answers: its routes are 404 until it runs.
        await eventually(async () => (await p.call('GET', `${base}/sessions`)).status === 200, 30_000);
      }
      for (const id of accepted) {
        await eventually(async () => (await terminals(p, id)).length > 0, 60_000);
        t.equal((await terminals(p, id)).length, 1, `create ${id}: exactly one terminal`);
      }
      const list = await p.call('GET', `${base}/sessions`);
      const running = (list.body.items as { id: string; session_name: string; state: string }[]).filter(
        (s) => s.state === 'active',
      );
      t.ok(running.length >= 1, `${running.length} sessions active after the kills`);

      // A message accepted, then the supervisor dies: after the restart it ends once (delivered or failed).
      const target = running[0]!;
      const msg = await p.call('POST', `${base}/session/${target.id}/messages`, { message: 'ahoy' });
      t.equal(msg.status, 202);
      await p.stop('SIGKILL');
      await p.start();
      await eventually(async () => (await terminals(p, msg.body.request_id as string)).length > 0, 60_000);
      t.equal(
        (await terminals(p, msg.body.request_id as string)).length,
        1,
        'the message: exactly one terminal',
      );

      await eventually(async () => {
        const open =
          ((await p.call('GET', `${base}/sessions`)).body.items as {
            session_name: string;
            running: boolean;
          }[]) ?? [];
        return open.every((s) => s.running);
      }, 60_000);
      const names = tmuxSessions(socket);
      t.equal(new Set(names).size, names.length, 'no runtime session twice');
      const open = ((await p.call('GET', `${base}/sessions`)).body.items as { session_name: string }[]).map(
        (s) => s.session_name,
      );
      t.same([...names].sort(), [...open].sort(), 'one tmux session per open session, none extra');
    },
  );
}
