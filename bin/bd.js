#!/usr/bin/env node
// The `bd` launcher: the bead store CLI agents call on every turn. It loads only dist/cli/bd (node:http
// and nothing else), never oclif: start-up time is the whole cost of a `bd show`. The bundle is that code
// in one file (bin/bundle-fast-path.mjs, run by `npm run build`).
import { main } from '../dist/cli/bd/main.bundle.js';

const code = await main(process.argv.slice(2));
if (process.stdout.writableLength > 0) await new Promise((resolve) => process.stdout.write('', resolve));
process.exit(code);
