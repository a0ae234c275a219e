// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tap/**', 'eslint.config.js', 'bin/**'] },
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
    // Machines decide; they never do I/O (style.md principle 1).
    files: ['machines/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            'node:*',
            'fs',
            'net',
            'http',
            'child_process',
            '@nats-io/*',
            'fastify',
            '../actors/*',
            '../http/*',
          ],
        },
      ],
    },
  },
  {
    // The CLI talks to the supervisor over HTTP only.
    files: ['cli/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['**/actors/**', '**/http/**'] }],
      // no-restricted-imports does not see import(): the same boundary for dynamic imports.
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ImportExpression[source.value=/(^|\\/)(actors|http)\\//]',
          message: 'The CLI talks to the supervisor over HTTP only.',
        },
      ],
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
