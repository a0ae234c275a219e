import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import ts from 'typescript';

// ESLint's import-x/no-cycle skips type-only imports by design, but a type-only import still ties two
// modules together (one cannot move or change without the other). This test walks every import the
// TypeScript scanner sees (`import type`, `export … from`, `import()` included) and finds the cycles.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const LAYERS = ['schemas', 'machines', 'actors', 'http', 'cli', 'bench'];

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));

/** The relative imports of each source file, resolved to files (bare package specifiers are left out). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of LAYERS.flatMap((l) => sources(join(root, l)))) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    graph.set(
      file,
      importedFiles.filter((i) => i.fileName.startsWith('.')).map((i) => resolve(dirname(file), i.fileName)),
    );
  }
  return graph;
}

/** Strongly connected components of more than one file, or a file importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(relative(root, w));
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

t.test('no import cycles among the source files, type-only imports included', async (t) => {
  const graph = importGraph();
  t.ok(graph.size > 100, `the walk found the sources (${graph.size} files)`);
  t.ok(
    [...graph.values()].some((deps) => deps.length > 0),
    'the walk resolved imports',
  );
  t.same(cycles(graph), []);
});

t.test('the cycle finder sees a two-file type-only cycle and a longer one', async (t) => {
  const graph = new Map([
    ['/a.ts', ['/b.ts']],
    ['/b.ts', ['/a.ts']],
    ['/c.ts', ['/d.ts']],
    ['/d.ts', ['/e.ts']],
    ['/e.ts', ['/c.ts', '/x.ts']],
    ['/x.ts', []],
  ]);
  t.same(
    cycles(graph).map((c) => c.length),
    [2, 3],
  );
});
