import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { schemaDocuments } from '../../http/schemaDocuments.ts';

const root = join(import.meta.dirname, '..', '..');

t.test('the checked-in docs/schema files are what the code generates', async (t) => {
  const docs = await schemaDocuments();
  for (const file of ['openapi.json', 'events.json'] as const) {
    const onDisk = readFileSync(join(root, 'docs', 'schema', file), 'utf8');
    // Compared as text: the files are published, so key order and formatting are part of them.
    t.ok(onDisk === docs[file], `docs/schema/${file} is up to date (regenerate: npx tsx http/genSchemas.ts)`);
  }
});
