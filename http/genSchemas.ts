/**
 * Writes the published schemas to `docs/schema/` (or the directory given as the first argument):
 * `npx tsx http/genSchemas.ts` (as `npm run gen:schemas`). `test/events/schemaIntegrity.test.ts` regenerates
 * them and fails when the checked-in files differ, so run this after changing any route or schema.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemaDocuments, type SchemaDocuments } from './schemaDocuments.ts';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const outDir = resolve(process.argv[2] ?? join(root, 'docs', 'schema'));
mkdirSync(outDir, { recursive: true });
const docs: SchemaDocuments = await schemaDocuments();
for (const file of Object.keys(docs) as Array<keyof SchemaDocuments>) {
  writeFileSync(join(outDir, file), docs[file]);
  process.stdout.write(`wrote ${join(outDir, file)}\n`);
}
