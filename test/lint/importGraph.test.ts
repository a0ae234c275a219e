/**
 * The folder-level import graph of actors/ and machines/: a family folder may import another only one way.
 * A cycle between folders is reported as the strongly connected set of folders that form it.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function tsFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) tsFiles(path, out);
    else if (path.endsWith('.ts')) out.push(path);
  }
  return out;
}

const SPECIFIER = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;

/** Edges between the folders directly under `floor` (a file at the floor's root is the folder `(root)`). */
export function folderEdges(floor: string): Map<string, Set<string>> {
  const base = join(root, floor);
  const folderOf = (file: string): string | undefined => {
    const rel = relative(base, file);
    if (rel.startsWith('..')) return undefined;
    const parts = rel.split('/');
    return parts.length > 1 ? parts[0] : '(root)';
  };
  const edges = new Map<string, Set<string>>();
  for (const file of tsFiles(base)) {
    const from = folderOf(file)!;
    for (const m of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const to = folderOf(resolve(dirname(file), (m[1] ?? m[2])!));
      if (to === undefined || to === from) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from)!.add(to);
    }
  }
  return edges;
}

/** The strongly connected sets of more than one folder (Tarjan), each sorted, sorted by first member. */
export function cycles(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const set: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        set.push(w);
      } while (w !== v);
      if (set.length > 1) found.push(set.sort());
    }
  };
  const nodes = new Set([...edges.keys(), ...[...edges.values()].flatMap((s) => [...s])]);
  for (const v of [...nodes].sort()) if (!index.has(v)) visit(v);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

t.test('the cycle finder finds a cycle and nothing else', async (t) => {
  const g = new Map([
    ['a', new Set(['b'])],
    ['b', new Set(['c'])],
    ['c', new Set(['a'])],
    ['d', new Set(['a'])],
  ]);
  t.same(cycles(g), [['a', 'b', 'c']]);
  t.same(cycles(new Map([['a', new Set(['b'])]])), []);
});

t.test('machines/: no folder-level cycle', async (t) => {
  t.same(cycles(folderEdges('machines')), []);
});

t.test('actors/: no folder-level cycle', async (t) => {
  t.same(cycles(folderEdges('actors')), []);
});

/**
 * Imports that reach into another family's folder past its face (`<family>/index.ts`): from inside `floor`
 * (a family's own files may use their own folder freely) and from the `outside` layers. `floors` are the
 * shared folders every family may read directly (actors/runtime, actors/supervisor).
 */
export function faceBypasses(
  at: string,
  floor: string,
  floors: readonly string[],
  outside: readonly string[],
): string[] {
  const base = join(at, floor);
  const familyOf = (file: string): string | undefined => {
    const parts = relative(base, file).split('/');
    if (parts[0] === '..' || parts.length < 2 || floors.includes(parts[0]!)) return undefined;
    return parts[0];
  };
  const importers = [base, ...outside.map((o) => join(at, o))].flatMap((d) => tsFiles(d));
  const found: string[] = [];
  for (const file of importers) {
    for (const m of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const target = resolve(dirname(file), (m[1] ?? m[2])!);
      const family = familyOf(target);
      if (family === undefined || family === familyOf(file)) continue;
      if (target !== join(base, family, 'index.ts'))
        found.push(`${relative(at, file)} → ${relative(at, target)}`);
    }
  }
  return found.sort();
}

t.test(
  'the face check reports a bypass, and lets a face, a floor and a family’s own files through',
  async (t) => {
    const at = mkdtempSync(join(tmpdir(), 'faces-'));
    t.teardown(() => rmSync(at, { recursive: true, force: true }));
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(at, path)), { recursive: true });
      writeFileSync(join(at, path), text);
    };
    write('actors/a/index.ts', "export { x } from './x.ts';\n");
    write('actors/a/x.ts', "import { r } from '../runtime/r.ts';\nexport const x = r;\n");
    write('actors/runtime/r.ts', 'export const r = 1;\n');
    write('actors/b/y.ts', "import { x } from '../a/index.ts';\nimport type { x as z } from '../a/x.ts';\n");
    write(
      'http/route.ts',
      "import { x } from '../actors/a/x.ts';\nimport { r } from '../actors/runtime/r.ts';\n",
    );
    t.same(faceBypasses(at, 'actors', ['runtime'], ['http']), [
      'actors/b/y.ts → actors/a/x.ts',
      'http/route.ts → actors/a/x.ts',
    ]);
  },
);

t.test('actors/: every family has a face', async (t) => {
  for (const name of readdirSync(join(root, 'actors'))) {
    const dir = join(root, 'actors', name);
    if (!statSync(dir).isDirectory() || ['runtime', 'supervisor'].includes(name)) continue;
    t.ok(statSync(join(dir, 'index.ts'), { throwIfNoEntry: false })?.isFile(), `actors/${name}/index.ts`);
  }
});

t.test('actors/: families meet each other, and http meets them, only through their faces', async (t) => {
  t.same(faceBypasses(root, 'actors', ['runtime', 'supervisor'], ['http']), []);
});

t.test('machines/: families meet each other and the root machines only through their faces', async (t) => {
  t.same(faceBypasses(root, 'machines', [], []), []);
});
