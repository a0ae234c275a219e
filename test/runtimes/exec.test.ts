import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { ExecProvider } from '../../actors/sessions/runtime/execProvider.ts';
import { ScriptError } from '../../actors/sessions/runtime/execScript.ts';
import { runtimeConformance, procAlive, until } from './conformance.ts';

const sample = fileURLToPath(new URL('../../docs/exec-session-sample.mjs', import.meta.url));
// The sample keeps its sessions under this folder; the script inherits it from this process.
const sessions = mkdtempSync(join(tmpdir(), 'gc-exec-sessions-'));
process.env.GC_EXEC_SESSION_DIR = sessions;
t.teardown(async () => {
  const provider = new ExecProvider({ script: sample });
  for (const name of (await provider.observe()).keys()) await provider.stop(name);
  rmSync(sessions, { recursive: true, force: true });
});

runtimeConformance(t, {
  provider: async () => new ExecProvider({ script: sample, pollMs: 25 }),
  realProcesses: true,
  exitCodes: false,
  attach: true,
});

/** A script of its own for one case, in a folder removed after the test. */
function script(t: Test, body: string): { path: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gc-exec-script-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'script.sh');
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return { path, dir };
}

const identity = { sessionId: 'gc-x', instanceToken: 'tok-x', city: 'c' };

t.test('start gets the JSON start config on stdin and its name as the argument', async (t) => {
  const { path, dir } = script(t, `[ "$1" = start ] && cat > "$(dirname "$0")/start-$2.json"; exit 0`);
  const provider = new ExecProvider({ script: path });
  await provider.start('n1', { command: 'agent --flag', workDir: '/w', env: { A: 'b' }, identity });
  t.same(JSON.parse(readFileSync(join(dir, 'start-n1.json'), 'utf8')), {
    work_dir: '/w',
    command: 'agent --flag',
    env: { A: 'b', GC_SESSION_ID: 'gc-x', GC_INSTANCE_TOKEN: 'tok-x', GC_CITY: 'c' },
  });
});

t.test('exit 1 is an error carrying the script stderr; exit 2 (unknown operation) is success', async (t) => {
  const { path } = script(
    t,
    `case "$1" in start) echo "quota exceeded for $2" >&2; exit 1;; peek) exit 2;; *) exit 1;; esac`,
  );
  const provider = new ExecProvider({ script: path });
  const err = await provider.start('n2', { command: 'x', workDir: '/', identity }).catch((e: unknown) => e);
  t.type(err, ScriptError);
  t.match((err as Error).message, /quota exceeded for n2/, 'the message is the script stderr');
  t.equal((err as ScriptError).exitCode, 1);
  t.equal(await provider.peek('n2', 5), '', 'an operation the script does not know is an empty success');
});

t.test('a script that hangs is killed with its children at the timeout', async (t) => {
  const { path, dir } = script(t, `sleep 1000 & echo $! > "$(dirname "$0")/child.pid"; wait`);
  const provider = new ExecProvider({ script: path, timeoutMs: 300 });
  const started = Date.now();
  const err = await provider.interrupt('n3').catch((e: unknown) => e);
  t.type(err, ScriptError);
  t.match((err as Error).message, /timed out after 300 ms and was killed/);
  t.ok(Date.now() - started < 5000, `the call ended at the timeout (${Date.now() - started} ms)`);
  const child = Number(readFileSync(join(dir, 'child.pid'), 'utf8'));
  await until(
    () => !procAlive(child),
    5000,
    () => `the end of the sleep ${child} the script started`,
  );
  t.pass('the sleep it started has been killed too');
});

t.test('a start the script refuses as existing is SessionExistsError', async (t) => {
  const { path } = script(t, `[ "$1" = start ] && { echo "session $2 already exists" >&2; exit 1; }; exit 2`);
  const provider = new ExecProvider({ script: path });
  await t.rejects(provider.start('n4', { command: 'x', workDir: '/', identity }), {
    name: 'SessionExistsError',
  });
});
