/**
 * The acceptance of issue 27 on a real supervisor with tmux and the mock agent: upstream's gastown
 * example (fixture, gascity a46ccb1) with a real git repository as its rig. A bead slung to the rig's
 * polecat pool wakes a polecat that starts in its own git worktree under `.gc/worktrees/<rig>/polecats/`
 * (made by the pack's `worktree-setup.sh` from `pre_start`, the pack's overlay copied in first) with its
 * prompt rendered from gastown's `prompt.template.md` (the mock agent's transcript shows it).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { hasTmux } from '../sessions/e2eKit.ts';
import { eventually } from '../helpers/supervisor.ts';
import { agentSupervisor, createMockCity } from '../agents/agentsKit.ts';

const CITY = 'gastown';
const GASTOWN = join(import.meta.dirname, '..', 'fixtures', 'upstream', 'gascity', 'examples', 'gastown');

/** Every user message the mock agent logged under `logDir`, with the directory it ran in. */
function userMessages(logDir: string): Array<{ cwd: string; text: string }> {
  if (!existsSync(logDir)) return [];
  const out: Array<{ cwd: string; text: string }> = [];
  for (const f of readdirSync(logDir, { recursive: true }) as string[]) {
    if (!f.endsWith('.jsonl')) continue;
    for (const line of readFileSync(join(logDir, f), 'utf8').split('\n').filter(Boolean)) {
      const r = JSON.parse(line) as { type?: string; cwd?: string; message?: { content?: unknown } };
      if (r.type !== 'user') continue;
      const c = r.message?.content;
      out.push({ cwd: r.cwd ?? '', text: typeof c === 'string' ? c : JSON.stringify(c) });
    }
  }
  return out;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, stdio: 'pipe' })
    .toString()
    .trim();

if (!hasTmux()) {
  if (process.env.CI) t.fail('tmux is not on PATH; CI must install it (.ci/run)');
  else t.plan(0, 'tmux is not on PATH: the gastown sling is not tested end to end here');
} else {
  t.test('a bead slung to gastown’s polecat pool starts a polecat in its own worktree', async (t) => {
    const start = await agentSupervisor(t, CITY);
    let s = await start();
    const dir = await createMockCity(t, s, CITY);
    await s.close();
    // The example as upstream ships it, its provider the mock agent, one rig taking the pack.
    for (const entry of readdirSync(GASTOWN))
      if (entry !== 'city.toml') cpSync(join(GASTOWN, entry), join(dir, entry), { recursive: true });
    const repo = join(dir, 'repos', 'proj');
    mkdirSync(repo, { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'README.md'), 'the rig\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'first');
    const cityToml = readFileSync(join(GASTOWN, 'city.toml'), 'utf8').replace(
      'provider = "claude"',
      'provider = "mock"',
    );
    writeFileSync(
      join(dir, 'city.toml'),
      `${cityToml}\n[[rigs]]\nname = "proj"\npath = "repos/proj"\n\n[rigs.imports.gastown]\nsource = "packs/gastown"\n`,
    );
    s = await start();
    t.teardown(() => rmSync(join(dir, '.gc', 'worktrees'), { recursive: true, force: true }));

    // The city is up once its agents answer (every gastown agent is listed, the rig's stamped ones too).
    await eventually(async () => {
      const agents = await s.call('GET', `/v0/city/${CITY}/agents`);
      return agents.status === 200 && JSON.stringify(agents.body).includes('proj/gastown.furiosa');
    }, 60_000);
    const created = await s.call('POST', `/v0/city/${CITY}/beads`, { title: 'Fix the README' });
    t.equal(created.status, 201, JSON.stringify(created.body));
    const bead = created.body.id as string;
    const slung = await s.call('POST', `/v0/city/${CITY}/sling`, { target: 'proj/gastown.polecat', bead });
    t.equal(slung.status, 200, JSON.stringify(slung.body));
    t.match(slung.body, { mode: 'direct', target: 'proj/gastown.polecat' });

    const logDir = join(s.root, 'agent-logs');
    const workDir = join(dir, '.gc', 'worktrees', 'proj', 'polecats', 'gastown.furiosa');
    const polecat = () =>
      userMessages(logDir).find((m) => m.cwd === workDir && m.text.includes('# Polecat Context'));
    await eventually(() => polecat() !== undefined, 60_000);
    const prompt = polecat()!.text;
    t.match(prompt, /^\[gastown\] proj\/gastown\.furiosa • \d{4}-\d\d-\d\dT/, 'beacon first');
    t.match(prompt, 'Run `gc prime` after compaction', 'the template rendered ({{ cmd }})');
    t.match(prompt, `NEVER edit files in** \`${repo}/\``, '{{ .RigRoot }} is the rig repository');
    t.notMatch(prompt, '{{', 'no template left');

    t.equal(git(workDir, 'rev-parse', '--is-inside-work-tree'), 'true', 'the polecat runs in a git worktree');
    t.equal(git(workDir, 'rev-parse', '--git-common-dir'), join(repo, '.git'), 'a worktree of the rig');
    t.match(git(workDir, 'branch', '--show-current'), /^gc-gastown\.furiosa-[0-9a-f]{12}$/);
    t.ok(existsSync(join(workDir, 'README.md')), 'checked out');
    t.ok(existsSync(join(workDir, '.claude', 'settings.json')), 'the pack overlay was copied in');
    t.match(readFileSync(join(workDir, '.beads', 'redirect'), 'utf8'), join(repo, '.beads'));
    await eventually(
      () => userMessages(logDir).some((m) => m.cwd === workDir && m.text.includes('Run gc hook;')),
      30_000,
    );
    t.pass('the nudge was typed after the prompt');
    // The mayor's and the witness's rendered prompts are far over tmux's command buffer: they go through
    // a file the command reads back (upstream's maxInlinePromptLen), so those sessions start too.
    for (const [cwd, heading] of [
      [join(dir, '.gc', 'agents', 'mayor'), '# Mayor Context'],
      [join(dir, '.gc', 'agents', 'proj', 'witness'), '# Witness Context'],
    ] as const)
      await eventually(
        () => userMessages(logDir).some((m) => m.cwd === cwd && m.text.includes(heading)),
        30_000,
      );
    t.pass('long prompts reach the agent');
  });
}
