import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import ts from 'typescript';

// `gc` starts often (scripts, editors), and everything its command index imports is loaded before any
// command runs: TypeBox alone added ~170 ms to `gc --help` when the CLI reached it through a schemas/
// module. The CLI may share schemas/ modules, but only through imports that carry no heavy package at
// run time (type-only imports are erased and cost nothing).

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const HEAVY = ['typebox', 'ajv', 'ajv-formats', 'fastify', 'pino', '@nats-io/', 'xstate'];

/** The specifiers a file imports at run time (not `import type` / `export type`). */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const out: string[] = [];
  for (const node of source.statements) {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly) {
      out.push((node.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && !node.isTypeOnly) {
      out.push((node.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return out;
}

/** Every package the CLI loads at run time from its command index, with the chain that reaches it. */
function packagesLoaded(entry: string): Map<string, string[]> {
  const packages = new Map<string, string[]>();
  const seen = new Set<string>();
  const walk = (file: string, chain: string[]): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of valueImports(file)) {
      if (spec.startsWith('.')) walk(resolve(dirname(file), spec), [...chain, spec]);
      else if (!packages.has(spec)) packages.set(spec, [...chain, spec]);
    }
  };
  walk(entry, [entry.slice(root.length + 1)]);
  return packages;
}

t.test('the gc command index loads no server-side package at start-up', async (t) => {
  const loaded = packagesLoaded(join(root, 'cli/commands/index.ts'));
  t.ok(loaded.has('@oclif/core/command'), 'the walk follows the command modules (it found oclif)');
  const heavy = [...loaded].filter(([name]) => HEAVY.some((h) => name === h || name.startsWith(h)));
  t.same(
    heavy.map(([, chain]) => chain.join(' → ')),
    [],
    'no import chain from the CLI reaches a server-side package',
  );
});
