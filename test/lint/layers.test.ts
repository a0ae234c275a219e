import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import t from 'tap';
import tseslint from 'typescript-eslint';

// The repository's own eslint.config.js, run on snippets placed (by path only) in nested folders. Type-aware
// rules are switched off: the snippets are not files of the TypeScript project, and these rules need none.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const eslint = new ESLint({ cwd: root, overrideConfig: tseslint.configs.disableTypeChecked });

/** The ids of the rules a snippet at `file` (relative to the repository) breaks, sorted, deduplicated. */
async function broken(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  const fatal = result!.messages.filter((m) => m.fatal);
  if (fatal.length > 0) throw new Error(fatal.map((m) => m.message).join('; '));
  // The snippets import names they never use; that finding is noise here.
  const found = result!.messages
    .map((m) => m.ruleId ?? '')
    .filter((r) => r !== '@typescript-eslint/no-unused-vars');
  return [...new Set(found)].sort();
}

const LAYER = 'import-x/no-restricted-paths';

// Each import names a real file: the rule judges where the import resolves to, not how it is spelled.
const forbidden: Array<[string, string]> = [
  ['schemas/nested/deep/x.ts', "import { x } from '../../../machines/beads/ids.ts';"],
  ['schemas/nested/x.ts', "export { x } from '../../actors/supervisor/supervisorConfig.ts';"],
  ['schemas/x.ts', "import type { X } from '../http/app.ts';"],
  ['schemas/x.ts', "import { x } from '../cli/api.ts';"],
  ['machines/beads/x.ts', "import { x } from '../../actors/supervisor/supervisorConfig.ts';"],
  ['machines/beads/deep/x.ts', "import type { X } from '../../../actors/runtime/journal/journal.ts';"],
  ['machines/beads/x.ts', "const m = await import('../../http/app.ts');"],
  ['machines/x.ts', "import { x } from '../cli/api.ts';"],
  ['actors/beads/x.ts', "import { x } from '../../http/app.ts';"],
  ['actors/runtime/journal/x.ts', "import type { X } from '../../../http/routes/events.ts';"],
  ['actors/x.ts', "const m = await import('../cli/api.ts');"],
  ['http/routes/x.ts', "import { x } from '../../cli/api.ts';"],
  ['cli/commands/city/x.ts', "import { x } from '../../../actors/config/cityConfig.ts';"],
  ['cli/commands/x.ts', "const m = await import('../../http/app.ts');"],
  ['cli/events/x.ts', "import { x } from '../../machines/beads/ids.ts';"],
];

t.test('an import across a layer boundary is an error at any folder depth', async (t) => {
  for (const [file, code] of forbidden) t.same(await broken(file, code), [LAYER], `${file}: ${code}`);
});

const allowed: Array<[string, string]> = [
  ['machines/beads/x.ts', "import { x } from '../../schemas/beads.ts';"],
  ['actors/beads/x.ts', "import { x } from '../../machines/beads/ids.ts';"],
  ['actors/runtime/journal/x.ts', "import { x } from '../../../schemas/event.ts';"],
  ['http/routes/x.ts', "import { x } from '../../actors/supervisor/supervisorConfig.ts';"],
  ['http/routes/x.ts', "import { x } from '../../machines/beads/ids.ts';"],
  ['cli/commands/x.ts', "import { x } from '../../schemas/event.ts';"],
];

t.test('an import inward is fine', async (t) => {
  for (const [file, code] of allowed) t.same(await broken(file, code), [], `${file}: ${code}`);
});

t.test('a runtime import cycle is an error', async (t) => {
  // indexes.ts is imported by model.ts; importing model.ts (a value) back closes a cycle.
  t.same(
    await broken(
      'machines/beads/indexes.ts',
      "import { createModel } from './model.ts';\nexport const m = createModel;",
    ),
    ['import-x/no-cycle'],
  );
});

t.test('actors never write raw output: they log through their Logger', async (t) => {
  for (const code of [
    "process.stderr.write('x');",
    "process.stdout.write('x');",
    'const { stderr } = process;',
    "console.error('x');",
    "console.log('x');",
    "import { stderr } from 'node:process';",
  ]) {
    t.not((await broken('actors/beads/x.ts', code)).length, 0, code);
  }
  t.same(
    await broken('http/routes/x.ts', "console.error('x');"),
    [],
    'outside actors/ the rule does not apply',
  );
});
