/**
 * The start steps before a session exists: overlays copied in order (per-provider files flattened for the
 * agent's provider) and pre_start commands run in the working directory, a failure naming the command.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { copyOverlays, runPreStart } from '../../actors/sessions/startSetup.ts';

t.test('overlays: later ones overwrite, per-provider/<p> flattened, a missing one skipped', async (t) => {
  const dir = t.testdir({
    pack: {
      overlay: {
        'a.txt': 'pack',
        '.claude': { 'settings.json': '{}' },
        'per-provider': { mock: { 'm.txt': 'mock' }, codex: { 'c.txt': 'x' } },
      },
    },
    agent: { 'a.txt': 'agent', 'b.txt': 'b' },
    work: {},
  });
  const work = join(dir, 'work');
  await copyOverlays([join(dir, 'pack', 'overlay'), join(dir, 'nope'), join(dir, 'agent')], work, 'mock');
  t.equal(readFileSync(join(work, 'a.txt'), 'utf8'), 'agent');
  t.equal(readFileSync(join(work, 'b.txt'), 'utf8'), 'b');
  t.equal(readFileSync(join(work, '.claude', 'settings.json'), 'utf8'), '{}');
  t.equal(readFileSync(join(work, 'm.txt'), 'utf8'), 'mock', 'the provider’s files flattened in');
  t.notOk(existsSync(join(work, 'c.txt')), 'another provider’s are not');
  t.notOk(existsSync(join(work, 'per-provider')));
});

t.test('pre_start: in order in the working directory; the first failure stops the start', async (t) => {
  const work = t.testdir({});
  mkdirSync(work, { recursive: true });
  await runPreStart(['echo one >> log', 'echo "$WHO" >> log'], {
    cwd: work,
    env: { ...process.env, WHO: 'two' },
    timeoutMs: 5000,
  });
  t.equal(readFileSync(join(work, 'log'), 'utf8'), 'one\ntwo\n');
  writeFileSync(join(work, 'log'), '');
  await t.rejects(
    runPreStart(['true', 'echo boom >&2; exit 3', 'echo never >> log'], {
      cwd: work,
      env: process.env,
      timeoutMs: 5000,
    }),
    { message: 'running pre_start: pre_start[1]: boom', status: 422 },
  );
  t.equal(readFileSync(join(work, 'log'), 'utf8'), '', 'nothing after the failure ran');
  await t.rejects(runPreStart(['sleep 5'], { cwd: work, env: process.env, timeoutMs: 100 }), {
    message: /^running pre_start: pre_start\[0\]: /,
  });
});
