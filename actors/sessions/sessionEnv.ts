/**
 * The session environment contract (upstream's): what a command run inside a session reads to know its
 * city and itself without flags, and `gc`/`bd` on its PATH. The city-wide part is computed once per city
 * (its paths, the supervisor's home through which `gc`/`bd` find the API, the API token); the per-session
 * part (bd's actor, the rig) is added at each start next to the identity the reconciler already sets.
 */
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's `bin/` (holding gc.js and bd.js), found from this module in the sources or dist/. */
function repoBin(): string | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dirname(dir) !== dir; dir = dirname(dir)) {
    if (existsSync(join(dir, 'bin', 'bd.js')) && existsSync(join(dir, 'bin', 'gc.js')))
      return join(dir, 'bin');
  }
  return undefined;
}

/** The tools sessions find on their PATH through the shims. */
export const SHIM_TOOLS = ['gc', 'bd'] as const;

const shimText = (bin: string, tool: string): string =>
  `#!/bin/sh\nexec '${process.execPath}' '${join(bin, `${tool}.js`)}' "$@"\n`;

/**
 * Writes `gc` and `bd` shims into `dir` (each execs this Node on the repository's launcher) and returns
 * the directory, or undefined when the launchers are not found. Rewrites only what changed.
 */
export function writeToolShims(dir: string): string | undefined {
  const bin = repoBin();
  if (!bin) return undefined;
  mkdirSync(dir, { recursive: true });
  for (const tool of SHIM_TOOLS) {
    const file = join(dir, tool);
    const text = shimText(bin, tool);
    let old: string | undefined;
    try {
      old = readFileSync(file, 'utf8');
    } catch {
      // Not written yet.
    }
    if (old !== text) writeFileSync(file, text);
    chmodSync(file, 0o755);
  }
  return dir;
}

/**
 * The shims of `dir` that are missing, not executable, or not what writeToolShims would write now (each
 * with why); empty when all are right. Effects: reads `dir`.
 */
export function staleToolShims(dir: string): { tool: string; problem: string }[] {
  const bin = repoBin();
  const out: { tool: string; problem: string }[] = [];
  for (const tool of SHIM_TOOLS) {
    const file = join(dir, tool);
    let text: string;
    try {
      accessSync(file, constants.X_OK);
      text = readFileSync(file, 'utf8');
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      out.push({ tool, problem: missing ? 'missing' : 'not executable' });
      continue;
    }
    if (bin && text !== shimText(bin, tool)) out.push({ tool, problem: 'out of date' });
  }
  return out;
}

export interface CityEnvInputs {
  city: string;
  path: string;
  /** The supervisor's home: `gc`/`bd` read the API's address from its supervisor.json. */
  home?: string | undefined;
  /** The supervisor's own environment (PATH, GC_API_TOKEN). */
  env: NodeJS.ProcessEnv;
  /** Where the shims live (default `<city>/.gc/bin`). */
  shimDir?: string;
}

/** The environment every session of a city shares. Writes the shims (see writeToolShims). */
export function cityEnvironment(inputs: CityEnvInputs): Record<string, string> {
  const shims = writeToolShims(inputs.shimDir ?? join(inputs.path, '.gc', 'bin'));
  const out: Record<string, string> = {
    GC_CITY_PATH: inputs.path,
    GC_CITY_ROOT: inputs.path,
    GT_ROOT: inputs.path,
    GC_CITY_RUNTIME_DIR: join(inputs.path, '.gc'),
    GC_BEADS: 'api',
  };
  if (inputs.home) out.GC_HOME = inputs.home;
  const token = inputs.env.GC_API_TOKEN?.trim();
  if (token) out.GC_API_TOKEN = token;
  if (inputs.env.GC_API?.trim()) out.GC_API = inputs.env.GC_API.trim();
  if (shims) {
    out.PATH = [shims, inputs.env.PATH ?? '/usr/bin:/bin'].join(':');
    out.GC_BIN = join(shims, 'gc');
  }
  return out;
}

/**
 * The per-session part: bd's actor is the session's name (the assignee `bd update --claim` writes, which
 * the work query's first tier looks for after a crash); a template `rig/name` runs in rig `rig`. Pure.
 */
export function sessionIdentityEnv(s: { sessionName: string; template: string }): Record<string, string> {
  const slash = s.template.lastIndexOf('/');
  return {
    BEADS_ACTOR: s.sessionName,
    GC_RIG: slash > 0 ? s.template.slice(0, slash) : '',
  };
}

/**
 * The command with the session's PATH set by the command itself: tmux gives a new session's first process
 * the PATH of the tmux client (the supervisor's), whatever `-e PATH=` says, so the shims would be lost.
 * A bare shell (empty command) is left alone. Pure.
 */
export function withSessionPath(command: string, env: Record<string, string>): string {
  if (command === '' || !env.PATH) return command;
  return `PATH='${env.PATH.replaceAll("'", `'\\''`)}'; export PATH\n${command}`;
}
