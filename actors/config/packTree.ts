/**
 * Reads a pack directory and every pack it reaches (`[pack].includes`, `[imports.*]`) into a tree for
 * machines/config/packTree.ts to expand. A source is relative to the declaring pack (`//path` is the
 * city's, an absolute path is itself); a remote one is not fetched (a warning). A pack reached again
 * while it is being read is a cycle: an error naming the chain. A pack reached twice otherwise (a
 * diamond) is read once. Effects: reads files.
 */
import { readdir, readFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { parse } from 'smol-toml';
import { importsOf } from '../../machines/config/imports.ts';
import { strOf, tableOf, type Table } from '../../machines/config/layers.ts';
import type { PackChild, PackNode } from '../../machines/config/packTree.ts';
import type { ConfigProblem } from '../../machines/config/problems.ts';
import { isRemoteSource } from './packPaths.ts';

export interface PackReadContext {
  cityDir: string;
  problems: ConfigProblem[];
  /** Packs read so far, by absolute directory. */
  cache: Map<string, PackNode>;
}

const rel = (cityDir: string, p: string): string => relative(cityDir, p) || '.';

/** Where a pack source written in a file of `fromDir` points. Pure. */
export function resolvePackSource(cityDir: string, fromDir: string, source: string): string {
  if (source.startsWith('//')) return join(cityDir, source.slice(2));
  return isAbsolute(source) ? source : resolve(fromDir, source);
}

/** The highest `[pack] schema` this loader reads (upstream's). */
const MAX_SCHEMA = 2;

/**
 * Reads the pack in `dir` (absolute) and what it reaches. `field` names, in `declaredIn`, the reference
 * that led here (for problems). `stack` holds the packs being read above this one. Undefined, with a
 * problem recorded, when it cannot be read.
 */
export async function readPackTree(
  ctx: PackReadContext,
  dir: string,
  ref: { declaredIn: string; field: string; fallbackName: string },
  stack: string[] = [],
): Promise<PackNode | undefined> {
  const problem = (severity: 'error' | 'warning', file: string, field: string, message: string) =>
    ctx.problems.push({ severity, file, field, message });
  if (stack.includes(dir)) {
    const chain = [...stack.slice(stack.indexOf(dir)), dir].map((d) => rel(ctx.cityDir, d)).join(' → ');
    problem('error', ref.declaredIn, ref.field, `pack cycle: ${chain}`);
    return undefined;
  }
  const cached = ctx.cache.get(dir);
  if (cached) return cached;
  const file = join(dir, 'pack.toml');
  const relFile = rel(ctx.cityDir, file);
  let doc: Table;
  try {
    doc = parse(await readFile(file, 'utf8'));
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    if (missing) problem('error', ref.declaredIn, ref.field, `no pack.toml at ${relFile}`);
    else problem('error', relFile, 'pack', (err as Error).message.split('\n')[0]!);
    return undefined;
  }
  const meta = tableOf(doc.pack);
  const schema = meta.schema;
  if (typeof schema === 'number' && schema > MAX_SCHEMA)
    problem('error', relFile, 'pack.schema', `schema ${schema} not supported (max ${MAX_SCHEMA})`);
  // One listing per directory instead of a stat per file: loads are dominated by file system round trips.
  const entries = await listDir(dir);
  warnUnsupported(ctx, entries, relFile, doc);
  const node: PackNode = {
    name: strOf(meta.name) ?? ref.fallbackName,
    dir,
    file: relFile,
    doc,
    conventionAgents: entries.dirs.has('agents') ? await readConventionAgents(ctx, dir) : [],
    children: [],
  };
  const below = [...stack, dir];
  const includes = Array.isArray(meta.includes) ? (meta.includes as unknown[]) : [];
  for (const [i, inc] of includes.entries()) {
    const spec: Table = { source: inc };
    const child = await readChild(ctx, node, `pack.includes[${i}]`, spec, below);
    if (child) node.children.push({ kind: 'include', spec, node: child });
  }
  for (const { binding, spec } of importsOf(doc)) {
    const child = await readChild(ctx, node, `imports.${binding}.source`, spec, below);
    if (child) node.children.push({ kind: 'import', binding, spec, node: child } satisfies PackChild);
  }
  ctx.cache.set(dir, node);
  return node;
}

async function readChild(
  ctx: PackReadContext,
  parent: PackNode,
  field: string,
  spec: Table,
  stack: string[],
): Promise<PackNode | undefined> {
  const source = typeof spec.source === 'string' ? spec.source : undefined;
  if (source === undefined) {
    ctx.problems.push({ severity: 'error', file: parent.file, field, message: 'source is required' });
    return undefined;
  }
  if (isRemoteSource(source)) {
    ctx.problems.push({
      severity: 'warning',
      file: parent.file,
      field,
      message: 'remote pack sources are not fetched; the pack is left out',
    });
    return undefined;
  }
  const dir = resolvePackSource(ctx.cityDir, parent.dir, source);
  return readPackTree(
    ctx,
    dir,
    { declaredIn: parent.file, field, fallbackName: dir.split('/').pop() ?? source },
    stack,
  );
}

const PROMPTS = ['prompt.template.md', 'prompt.md.tmpl', 'prompt.md'];

interface Listing {
  files: Set<string>;
  dirs: Set<string>;
}

/** A directory's files and subdirectories (empty when it cannot be read). */
async function listDir(dir: string): Promise<Listing> {
  const out: Listing = { files: new Set(), dirs: new Set() };
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => []))
    (e.isDirectory() ? out.dirs : out.files).add(e.name);
  return out;
}

/**
 * The `agents/<name>/` directories of a pack (not `.` or `_` prefixed), sorted: each an agent named after
 * its directory, from its `agent.toml` if any, its prompt, `overlay/` and `namepool.txt` found there.
 */
async function readConventionAgents(
  ctx: PackReadContext,
  packDir: string,
): Promise<PackNode['conventionAgents']> {
  const root = join(packDir, 'agents');
  const names = [...(await listDir(root)).dirs]
    .filter((n) => !n.startsWith('.') && !n.startsWith('_'))
    .sort();
  const read = await Promise.all(
    names.map((name) => readConventionAgent(ctx, packDir, join(root, name), name)),
  );
  return read.filter((a) => a !== undefined);
}

async function readConventionAgent(
  ctx: PackReadContext,
  packDir: string,
  dir: string,
  name: string,
): Promise<PackNode['conventionAgents'][number] | undefined> {
  const here = await listDir(dir);
  const tomlFile = join(dir, 'agent.toml');
  let table: Table = {};
  const hasToml = here.files.has('agent.toml');
  if (hasToml) {
    try {
      table = parse(await readFile(tomlFile, 'utf8'));
    } catch (err) {
      ctx.problems.push({
        severity: 'error',
        file: rel(ctx.cityDir, tomlFile),
        field: 'agent',
        message: (err as Error).message.split('\n')[0]!,
      });
      return undefined;
    }
  }
  // Relative paths inside agent.toml are the pack's (upstream), so they are re-based to the pack root.
  for (const key of ['prompt_template', 'session_setup_script', 'overlay_dir'])
    if (typeof table[key] === 'string' && table[key] !== '' && !isAbsolute(table[key]))
      table[key] = rel(ctx.cityDir, join(packDir, table[key]));
  table.name = name;
  const prompt = PROMPTS.find((p) => here.files.has(p));
  if (prompt) table.prompt_template = rel(ctx.cityDir, join(dir, prompt));
  if (here.dirs.has('overlay')) table.overlay_dir = rel(ctx.cityDir, join(dir, 'overlay'));
  if (here.files.has('namepool.txt')) table.namepool = rel(ctx.cityDir, join(dir, 'namepool.txt'));
  return { table, file: rel(ctx.cityDir, hasToml ? tomlFile : dir) };
}

/** Pack parts upstream uses that this supervisor does not: each a warning naming the pack and the part. */
export const UNSUPPORTED_PACK_DIRS: Record<string, string> = {
  commands: 'pack commands (`gc <binding> <words>`) are not served',
  doctor: 'pack doctor checks are not run',
  skills: 'skills are not materialised',
  mcp: 'MCP servers are not materialised',
};

function warnUnsupported(ctx: PackReadContext, entries: Listing, file: string, doc: Table): void {
  for (const [sub, message] of Object.entries(UNSUPPORTED_PACK_DIRS))
    if (entries.dirs.has(sub))
      ctx.problems.push({
        severity: 'warning',
        file,
        field: `${sub}/`,
        message: `read but not applied: ${message}`,
      });
  const meta = tableOf(doc.pack);
  if (meta.requires !== undefined)
    ctx.problems.push({
      severity: 'warning',
      file,
      field: 'pack.requires',
      message: 'read but not applied: pack requirements are not checked',
    });
  if (doc.commands !== undefined || doc.doctor !== undefined)
    ctx.problems.push({
      severity: 'warning',
      file,
      field: doc.commands !== undefined ? 'commands' : 'doctor',
      message: 'read but not applied: legacy [[commands]] / [[doctor]] tables are not served',
    });
}
