/**
 * A client generated from our document is the client generated from upstream's: a client written against
 * upstream's generated types, calling every upstream operation with openapi-fetch (parameters and bodies
 * as upstream types them, answers and errors kept in upstream's types), type-checks against the types
 * openapi-typescript generates from our served document with no diagnostic. The same client against
 * upstream's own types is the control that it is right, and against our document with one field's type
 * changed the check that it can fail. One TypeScript program holds all three.
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import t from 'tap';
import ts from 'typescript';
import { memoryApp } from '../helpers/app.ts';
import { upstreamDocument } from '../helpers/upstreamDocument.ts';
import { upstreamClientSource } from './upstreamClientSource.ts';

const ROOT = join(import.meta.dirname, '..', '..');

interface Doc {
  paths: Record<string, Record<string, { operationId?: string }>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
}

const typesOf = async (doc: Doc): Promise<string> =>
  astToString(await openapiTS(doc as unknown as Parameters<typeof openapiTS>[0]));

t.test('a client written against upstream’s types compiles against ours, every operation', async (t) => {
  const upstream = upstreamDocument<Doc>();
  const { app } = await memoryApp();
  t.teardown(() => app.close());
  const ours = (await app.inject({ url: '/openapi.json' })).json<Doc>();
  // The negative control: a field of a shared component served as another type than upstream's.
  const broken = structuredClone(ours);
  broken.components.schemas.Bead!.properties!.title = { type: 'integer' };

  const work = mkdtempSync(join(tmpdir(), 'gc-upstream-client-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  // The client resolves openapi-fetch and @types/node as a project with them installed would.
  symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'), 'dir');
  writeFileSync(join(work, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  const files: string[] = [];
  for (const [name, doc] of [
    ['upstream', upstream],
    ['ours', ours],
    ['broken', broken],
  ] as const) {
    writeFileSync(join(work, `${name}.ts`), await typesOf(doc));
    const client = join(work, `client-${name}.ts`);
    writeFileSync(client, upstreamClientSource(upstream, name, 'upstream'));
    files.push(client);
  }
  const source = upstreamClientSource(upstream, 'ours', 'upstream');
  for (const item of Object.values(upstream.paths))
    for (const op of Object.values(item))
      if (op.operationId)
        t.ok(source.includes(`// ${op.operationId}\n`), `the client calls ${op.operationId}`);

  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    strict: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
  });
  const byFile = new Map<string, string[]>();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file ? basename(d.file.fileName) : '(program)';
    const where =
      d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n').slice(-3).join(' / ');
    byFile.set(file, [...(byFile.get(file) ?? []), `${file}:${where} ${text}`]);
  }
  t.same(byFile.get('(program)') ?? [], [], 'the program itself is sound');
  t.same(byFile.get('client-upstream.ts') ?? [], [], 'the client is right about upstream’s own types');
  t.same(byFile.get('client-ours.ts') ?? [], [], 'and compiles against the types of our document');
  t.ok((byFile.get('client-broken.ts') ?? []).length > 0, 'a served type unlike upstream’s fails it');
  t.same(
    [...byFile.keys()].filter((f) => f !== 'client-broken.ts'),
    [],
    'no diagnostic anywhere else (the generated types included)',
  );
});
