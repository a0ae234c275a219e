#!/usr/bin/env node
// Build step (part of `npm run build`, after tsc): bundles the two fast paths agents run on every turn,
// `bd` (dist/cli/bd/main.js) and gc's agent-facing commands (dist/cli/agent/main.js), into one file each.
// Node then reads and links one module instead of a dozen: that is most of what their start-up costs
// beyond `node -e 0`. Their lazily loaded commands stay lazy (esbuild keeps a dynamic import's module
// uninitialised until it is called).
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const entry of ['cli/bd/main', 'cli/agent/main']) {
  await build({
    entryPoints: [join(root, 'dist', `${entry}.js`)],
    outfile: join(root, 'dist', `${entry}.bundle.cjs`),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
  });
}
