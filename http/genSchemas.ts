/**
 * Writes the published schemas to `docs/schema/` under the working directory (or to the directory given as
 * the first argument): `npx tsx http/genSchemas.ts` from the project root (`npm run gen:schemas`), or
 * `node dist/http/genSchemas.js` after a build. `test/events/schemaIntegrity.test.ts` regenerates them and
 * fails when the checked-in files differ, so run this after changing any route or schema.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { schemaDocuments, type SchemaDocuments } from './schemaDocuments.ts';

const outDir = resolve(process.argv[2] ?? join('docs', 'schema'));
mkdirSync(outDir, { recursive: true });
const docs: SchemaDocuments = await schemaDocuments();
for (const file of Object.keys(docs) as Array<keyof SchemaDocuments>) {
  writeFileSync(join(outDir, file), docs[file]);
  process.stdout.write(`wrote ${join(outDir, file)}\n`);
}
