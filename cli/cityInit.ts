import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { parse, stringify } from 'smol-toml';
import { CliError } from './errors.ts';

/** Upstream's built-in providers, in its order (the names `gc init --provider` accepts). */
export const UPSTREAM_PROVIDERS = [
  'claude',
  'codex',
  'gemini',
  'cursor',
  'copilot',
  'amp',
  'opencode',
  'auggie',
  'pi',
  'omp',
] as const;

/** The directories upstream's init creates besides `.gc/` (its convention directories). */
const CONVENTION_DIRS = [
  'agents',
  'commands',
  'doctor',
  'formulas',
  'orders',
  'template-fragments',
  'overlays',
  'assets',
];
const RUNTIME_DIRS = ['.gc', '.gc/cache', '.gc/runtime', '.gc/system'];
const GITIGNORE = ['.gc/', '.beads/*', '!.beads/config.yaml', '!.beads/metadata.json', 'hooks/', '.runtime/'];
const PACK_SCHEMA = 2;
const MAYOR_PROMPT = 'agents/mayor/prompt.template.md';

const MAYOR_TEXT = `# Mayor

You coordinate this city: break goals into work, hand it to agents, and keep an eye on progress.

- See what is waiting: \`bd ready\`; read an item with \`bd show <id>\`.
- Give work to an agent: \`{{ cmd }} sling <agent> <bead-or-text>\`.
- Talk to others: \`{{ cmd }} mail send <to> -s <subject> -m <message>\`; read yours with \`{{ cmd }} mail inbox\`.
- Check the city: \`{{ cmd }} status\`.
`;

/** What `gc init` writes. */
export interface InitOptions {
  dir: string;
  provider?: string | undefined;
  file?: string | undefined;
  name?: string | undefined;
  /** Progress lines, as they happen. */
  progress: (line: string) => Promise<void>;
}

const exists = async (p: string): Promise<boolean> => {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
};

/** city.toml of upstream's `--provider` init: the workspace, one mayor agent and its always-on session. */
function providerCityToml(name: string, provider: string): string {
  return stringify({
    workspace: { name, provider },
    agent: [{ name: 'mayor', prompt_template: MAYOR_PROMPT }],
    named_session: [{ template: 'mayor', mode: 'always' }],
  });
}

/** The `--file` city.toml, its workspace name set to `name` when one is asked for. @throws CliError */
async function fileCityToml(
  file: string,
  name: string | undefined,
): Promise<{ text: string; declared: string | undefined }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new CliError(`reading ${JSON.stringify(file)}: ${(err as Error).message}`);
  }
  let doc: Record<string, unknown>;
  try {
    doc = parse(text);
  } catch (err) {
    throw new CliError(`${file}: ${(err as Error).message.split('\n')[0]}`);
  }
  const ws = (typeof doc.workspace === 'object' && doc.workspace !== null ? doc.workspace : {}) as {
    name?: unknown;
  };
  const declared = typeof ws.name === 'string' && ws.name !== '' ? ws.name : undefined;
  if (name === undefined) return { text, declared };
  return { text: stringify({ ...doc, workspace: { ...ws, name } }), declared: name };
}

/**
 * `gc init`: writes a new city at `dir` (city.toml, pack.toml, `.gc/` runtime dirs, convention dirs, the
 * mayor's prompt, .gitignore) and resolves the closing lines to print. Everything is checked before the
 * first write, and a failed write removes what this run created.
 * Effects: creates directories and files. @throws CliError (`already initialized`, a bad flag, I/O errors)
 */
export async function initCity(o: InitOptions): Promise<string[]> {
  const dir = resolve(o.dir);
  if (existsSync(join(dir, 'city.toml')) || existsSync(join(dir, '.gc'))) {
    throw new CliError('already initialized');
  }
  if (o.provider !== undefined && !(UPSTREAM_PROVIDERS as readonly string[]).includes(o.provider)) {
    throw new CliError(
      `unknown provider ${JSON.stringify(o.provider)} (expected one of: ${UPSTREAM_PROVIDERS.join(', ')})`,
    );
  }
  const fromFile = o.file !== undefined ? await fileCityToml(o.file, o.name) : undefined;
  const name = o.name ?? fromFile?.declared ?? basename(dir);
  if (!/^[a-zA-Z0-9][a-zA-Z0-9._-]*$/.test(name)) {
    throw new CliError(`invalid city name ${JSON.stringify(name)}: use letters, digits, '.', '_' or '-'`);
  }
  const cityToml = fromFile?.text ?? providerCityToml(name, o.provider!);
  if (!(await exists(dirname(dir)))) throw new CliError(`${dirname(dir)}: no such directory`);

  const created: string[] = [];
  const make = async (p: string): Promise<void> => {
    if (await exists(p)) return;
    await mkdir(p);
    created.push(p);
  };
  const write = async (p: string, text: string): Promise<void> => {
    await writeFile(p, text, { flag: 'wx' });
    created.push(p);
  };
  try {
    await make(dir);
    await o.progress('[1/6] Creating runtime scaffold');
    for (const d of [...RUNTIME_DIRS, ...CONVENTION_DIRS]) await make(join(dir, d));
    if (o.file === undefined) {
      await o.progress('[3/6] Writing default prompts');
      await make(join(dir, 'agents', 'mayor'));
      await write(join(dir, MAYOR_PROMPT), MAYOR_TEXT);
    }
    await o.progress('[5/6] Writing pack.toml');
    await write(join(dir, 'pack.toml'), `[pack]\nname = ${JSON.stringify(name)}\nschema = ${PACK_SCHEMA}\n`);
    await o.progress('[6/6] Writing city configuration');
    await write(join(dir, 'city.toml'), cityToml);
    const gitignore = join(dir, '.gitignore');
    if (!(await exists(gitignore))) await write(gitignore, `${GITIGNORE.join('\n')}\n`);
  } catch (err) {
    for (const p of created.reverse()) await rm(p, { recursive: true, force: true }).catch(() => undefined);
    throw err instanceof CliError ? err : new CliError((err as Error).message);
  }
  return [
    'Welcome to Gas City!',
    o.file !== undefined
      ? `Initialized city ${JSON.stringify(name)} from ${basename(o.file)}.`
      : `Initialized city ${JSON.stringify(name)} with default provider ${JSON.stringify(o.provider)}.`,
  ];
}
