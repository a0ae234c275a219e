/**
 * Agent settings applied, on a real supervisor with tmux and the mock agent: a rig agent discovered from a
 * pack's `agents/<name>/` runs in its `work_dir` (expanded per instance, created), gets its prompt rendered
 * from `prompt.template.md` with the city pack's fragments and upstream's variables (the mock agent's
 * transcript shows it as the first message), and its `nudge` typed after start; a `start_command` has
 * `{{.ConfigDir}}` and `{{.CityRoot}}` filled in.
 */
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import t from 'tap';
import { hasTmux } from '../sessions/e2eKit.ts';
import { eventually } from '../helpers/supervisor.ts';
import { agentSupervisor, createMockCity } from '../agents/agentsKit.ts';

const CITY = 'promptcity';

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

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

if (!hasTmux()) {
  if (process.env.CI) t.fail('tmux is not on PATH; CI must install it (.ci/run)');
  else t.plan(0, 'tmux is not on PATH: agent prompts are not tested end to end here');
} else {
  t.test('a pack rig agent starts in its work_dir with its rendered prompt and nudge', async (t) => {
    const start = await agentSupervisor(t, CITY);
    let s = await start();
    const dir = await createMockCity(t, s, CITY);
    await s.close();
    write(dir, {
      'packs/town/pack.toml': '[pack]\nname = "town"\nschema = 2\n',
      'packs/town/template-fragments/greet.template.md':
        '{{ define "greet" }}Greetings from the {{ .RigName }} rig{{ end }}',
      'packs/town/agents/polecat/agent.toml':
        'scope = "rig"\nprovider = "mock"\nmin_active_sessions = 1\nmax_active_sessions = 2\n' +
        'work_dir = ".gc/worktrees/{{.Rig}}/polecats/{{.AgentBase}}"\nnudge = "Run gc hook now."\n',
      'packs/town/agents/polecat/prompt.template.md':
        'You are {{ basename .AgentName }} of {{ .RigName }}, run {{ cmd }} prime. {{ template "greet" . }}.\n' +
        'Unknown keys render empty: [{{ .Nope }}]\n',
      'packs/town/agents/runner/agent.toml':
        // {{.ConfigDir}} is the pack's root, not the agent's directory (upstream).
        'scope = "city"\nmin_active_sessions = 1\n' +
        'start_command = "sh {{.ConfigDir}}/assets/scripts/run.sh {{.CityRoot}}/runner.out"\n',
      'packs/town/assets/scripts/run.sh': 'pwd > "$1"\nexec sleep 600\n',
      'app/README.md': 'the rig\n',
    });
    chmodSync(join(dir, 'packs/town/assets/scripts/run.sh'), 0o755);
    appendFileSync(
      join(dir, 'city.toml'),
      '\n[imports.town]\nsource = "packs/town"\n\n[[rigs]]\nname = "app"\npath = "app"\n\n' +
        '[rigs.imports.town]\nsource = "packs/town"\n',
    );
    s = await start();
    const logDir = join(s.root, 'agent-logs');
    const workDir = join(dir, '.gc', 'worktrees', 'app', 'polecats', 'town.polecat-1');
    await eventually(() => userMessages(logDir).some((m) => m.text.includes('Run gc hook now.')), 30_000);
    const messages = userMessages(logDir);
    const first = messages.find((m) => m.text.includes('You are'));
    t.ok(first, 'the prompt reached the agent');
    t.match(first!.text, /^\[promptcity\] app\/town\.polecat-1 • \d{4}-\d\d-\d\dT/, 'beacon first');
    t.match(
      first!.text,
      'You are town.polecat-1 of app, run gc prime. Greetings from the app rig.\nUnknown keys render empty: []',
    );
    t.equal(first!.cwd, workDir, 'the agent runs in its expanded work_dir');
    t.ok(existsSync(workDir));
    await eventually(() => existsSync(join(dir, 'runner.out')), 20_000);
    t.equal(readFileSync(join(dir, 'runner.out'), 'utf8').trim(), dir, 'start_command variables filled');
  });
}
