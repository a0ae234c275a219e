import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { loadConfig } from '../../actors/supervisor/supervisorConfig.ts';
import { runSupervisor } from '../../http/main.ts';
import { fakeHost } from '../helpers/supervisor.ts';
import { isGapFree, sleep } from './kit.ts';

/**
 * Fault: a slow reader on `gc events`' stdout (a pipe into a busy consumer).
 *
 * Regression (found by bench/cli.ts): `gc events` listing 20,000 events into a pipe printed a few dozen
 * fewer lines than the log holds, newest missing, and exited 0. Root cause: bin/gc.js ends with
 * `process.exit()`, which drops whatever stdout's buffer still holds when the reader is behind (writes to
 * a pipe go through a buffer once the pipe is full); it now waits for stdout to drain first.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const GC = join(ROOT, 'bin', 'gc.js');
const EVENTS = 20_000;

t.test('gc events into a slow pipe prints every event before it exits', async (t) => {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'commands', 'index.js'))) {
    // `npm test` builds first: under CI an unbuilt CLI is a failure, elsewhere a visible skip.
    if (process.env.CI) t.fail('the CLI is not built; CI runs npm test, which builds it');
    else t.plan(0, 'the CLI is not built (npm run build)');
    return;
  }
  const root = mkdtempSync(join(tmpdir(), 'gc-pipe-'));
  mkdirSync(join(root, 'home'));
  const config = loadConfig({
    GC_HOME: join(root, 'gchome'),
    GC_PORT: '0',
    GC_BIND: '127.0.0.1',
    GC_TICK: '200ms',
  });
  const running = await runSupervisor(config, { host: fakeHost(join(root, 'home')) });
  t.teardown(async () => {
    await running.close();
    rmSync(root, { recursive: true, force: true });
  });
  const created = await fetch(`${running.url}/v0/city`, {
    method: 'POST',
    headers: { 'x-gc-request': '1', 'content-type': 'application/json' },
    body: JSON.stringify({ dir: join(root, 'home', 'bench'), start_command: 'true' }),
  });
  t.equal(created.status, 202, 'city accepted');
  while (!running.supervisor.live.get('bench')?.running) await sleep(10);
  await running.supervisor.settled();
  const journal = running.supervisor.live.get('bench')!.journal;
  for (let i = 0; i < EVENTS; i += 1000) {
    await Promise.all(
      Array.from({ length: 1000 }, (_, j) =>
        journal.append({ type: 'pipe.event', actor: 'fault', message: `e${i + j}` }),
      ),
    );
  }
  const head = await journal.head();
  t.comment(`fault: ${head} events listed into a pipe read slowly (a 20 ms pause after each chunk)`);

  const child = spawn(process.execPath, [GC, 'events', '--city', 'bench'], {
    cwd: ROOT,
    env: { ...process.env, GC_HOME: config.home, GC_API: '', GC_CITY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    text += d.toString();
    child.stdout.pause();
    setTimeout(() => child.stdout.resume(), 20);
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const seqs = text
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { seq: number }).seq);
  t.equal(code, 0, `gc events exited 0 ${stderr}`);
  t.equal(seqs.length, head, `it printed all ${head} events`);
  t.ok(isGapFree(seqs), 'oldest first, seqs 1..head');
});
