// @ts-check
import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

// The layers, inner to outer: schemas ← machines ← actors ← http. A layer imports only the layers inside
// it; the CLI talks to the supervisor over HTTP and may import schemas/ only. Zones match resolved files,
// so the rule holds at any folder depth and for `import()`, `export … from` and type imports alike.
const layers = [
  { target: './schemas', from: ['./machines', './actors', './http', './cli'] },
  { target: './machines', from: ['./actors', './http', './cli'] },
  { target: './actors', from: ['./http', './cli'] },
  { target: './http', from: ['./cli'] },
  { target: './cli', from: ['./machines', './actors', './http'] },
].map((zone) => ({
  ...zone,
  message: `${zone.target.slice(2)}/ may not import ${zone.from.map((f) => f.slice(2) + '/').join(', ')} (layers: schemas ← machines ← actors ← http; cli → HTTP + schemas).`,
}));

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.tap/**',
      '.stryker-tmp/**',
      'reports/**',
      'eslint.config.js',
      'bin/**',
      'docs/**/*.mjs',
      'mutation/**/*.mjs',
      // Upstream's own files, carried as they are (test/fixtures/upstream/README.md names the commits).
      'test/fixtures/**',
      'tap-snapshots/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    plugins: { 'import-x': importX },
    settings: {
      // The code imports with `.ts` specifiers, which Node's resolution finds as they are.
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'] })],
      // Without these no-cycle parses only .js files and silently finds no cycle through .ts ones.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: layers }],
      // A cycle cannot pass through a package back into this code: leave node_modules unparsed (much faster).
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // Machines decide; they never do I/O (style.md principle 1).
    files: ['machines/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: ['node:*', 'fs', 'net', 'http', 'child_process', '@nats-io/*', 'fastify'],
        },
      ],
    },
  },
  {
    // One log format: actors log through the Logger they are given (pino, the one Fastify uses).
    files: ['actors/**/*.ts'],
    rules: {
      'no-console': 'error',
      'no-restricted-properties': [
        'error',
        ...['stderr', 'stdout'].map((property) => ({
          object: 'process',
          property,
          message: 'Actors log through their Logger (actors/runtime/logger.ts), never raw output.',
        })),
      ],
      'no-restricted-imports': [
        'error',
        ...['process', 'node:process'].map((name) => ({
          name,
          importNames: ['stderr', 'stdout'],
          message: 'Actors log through their Logger (actors/runtime/logger.ts), never raw output.',
        })),
      ],
    },
  },
  {
    // The dashboard's browser modules (web/): plain JavaScript served as it is, outside the TS project.
    files: ['web/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false },
      globals: Object.fromEntries(
        [
          'document',
          'window',
          'fetch',
          'EventSource',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'console',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
      // tap queues `t.test(...)` itself; awaiting each would serialize nothing and add noise.
      '@typescript-eslint/no-floating-promises': 'off',
    },
  },
);
