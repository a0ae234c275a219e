import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';

/**
 * A wire type is written once, as a TypeBox schema in schemas/ (which also makes its OpenAPI entry); code
 * takes its type with `Static<typeof …>`. This finds hand-written copies: an `interface` (or object type
 * alias) outside schemas/ whose fields are exactly the properties of an object schema schemas/ exports.
 */

const ROOT = join(import.meta.dirname, '..', '..');

/** Property-name sets of every object schema schemas/ exports, keyed by the set, valued by export names. */
async function schemaShapes(): Promise<Map<string, string[]>> {
  const shapes = new Map<string, string[]>();
  for (const file of await readdir(join(ROOT, 'schemas'))) {
    if (!file.endsWith('.ts')) continue;
    const mod = (await import(join(ROOT, 'schemas', file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(mod)) {
      const props = (value as { type?: unknown; properties?: unknown } | null)?.properties;
      if ((value as { type?: unknown }).type !== 'object' || typeof props !== 'object' || props === null)
        continue;
      const key = Object.keys(props).sort().join(',');
      if (Object.keys(props).length < 2) continue;
      shapes.set(key, [...(shapes.get(key) ?? []), `${file}:${name}`]);
    }
  }
  return shapes;
}

/** The text between the brace at `open` and its match. */
function braced(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(open + 1, i);
  }
  return text.slice(open + 1);
}

/** Top-level field names of an interface body (comments and nested object types removed). */
function fieldNames(body: string): string[] {
  let flat = body.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  for (let prev = ''; prev !== flat;) [prev, flat] = [flat, flat.replace(/\{[^{}]*\}/g, '')];
  return [...flat.matchAll(/(?:^|[;,\n])\s*(?:readonly\s+)?'?([\w-]+)'?\??\s*:/g)].map((m) => m[1]!);
}

/** Declared object shapes (`interface X {…}`, `type X = {…}`) of one source file. */
function declarations(text: string): Array<{ name: string; fields: string[] }> {
  const out: Array<{ name: string; fields: string[] }> = [];
  for (const m of text.matchAll(/(?:interface\s+(\w+)(?:\s+extends[^{]+)?|type\s+(\w+)\s*=)\s*\{/g)) {
    out.push({ name: (m[1] ?? m[2])!, fields: fieldNames(braced(text, m.index + m[0].length - 1)) });
  }
  return out;
}

t.test('no hand-written copy of a schemas/ wire type outside schemas/', async (t) => {
  const shapes = await schemaShapes();
  const copies: string[] = [];
  // The CLI and the HTTP layer, and the supervisor's API to the HTTP layer: where request and response
  // bodies are handled. (Internal records elsewhere in actors/ may share a schema's field names by chance.)
  const files = ['actors/supervisor/supervisorApi.ts'];
  for (const dir of ['cli', 'http']) {
    for (const entry of await readdir(join(ROOT, dir), { recursive: true })) {
      if (entry.endsWith('.ts')) files.push(join(dir, entry));
    }
  }
  for (const file of files) {
    for (const d of declarations(await readFile(join(ROOT, file), 'utf8'))) {
      const same = shapes.get([...d.fields].sort().join(','));
      if (same) copies.push(`${file} ${d.name} copies ${same.join(' / ')}`);
    }
  }
  t.same(copies, []);
});
