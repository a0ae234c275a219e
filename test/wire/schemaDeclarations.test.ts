import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import t from 'tap';
import { IsSchema } from 'typebox';

// Every schema schemas/ exports is the wire contract (its validator, its OpenAPI entry, its CLI type), and a
// change to one must be deliberate: each file's exported schemas are pinned here as JSON. A failure shows
// the diff; after reviewing it, `npx tap --snapshot test/wire/schemaDeclarations.test.ts` takes the change
// (and `npx tsx http/genSchemas.ts` regenerates docs/schema, which test/http/schemaIntegrity compares).
// This is the test mutation testing (docs/testing.md) counts on for schemas/: a description emptied, an
// `additionalProperties: false` flipped or a format dropped changes the JSON.

const dir = resolve(dirname(fileURLToPath(import.meta.url)), '../../schemas');

/** JSON with a stable key order; a RegExp or a function (TypeBox keeps none, but a refine could) by its text. */
function pinned(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pinned);
  if (value instanceof RegExp || typeof value === 'function') return String(value);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = pinned((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

/**
 * One line per schema: its JSON, or for a big composite (an event union holds every payload schema again)
 * its hash and size, so the snapshot stays reviewable; the parts of a composite are pinned by their own
 * exports, where the diff is readable.
 */
function entry(value: unknown): string {
  const json = JSON.stringify(pinned(value));
  if (json.length <= 2048) return json;
  return `sha256:${createHash('sha256').update(json).digest('hex')} (${json.length} bytes)`;
}

const files = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .sort();

t.test('the files are found', async (t) => {
  t.ok(files.length >= 40, `${files.length} files in schemas/`);
});

for (const file of files) {
  t.test(file, async (t) => {
    const mod = (await import(pathToFileURL(join(dir, file)).href)) as Record<string, unknown>;
    const schemas: Record<string, unknown> = {};
    for (const name of Object.keys(mod).sort()) {
      const value = mod[name];
      if (value && typeof value === 'object' && IsSchema(value)) schemas[name] = entry(value);
    }
    t.matchSnapshot(schemas, `the schemas ${file} exports`);
  });
}
