#!/usr/bin/env node
// The `bd` launcher: the bead store CLI agents call on every turn. CommonJS (bin/package.json) and one
// bundled file (bin/bundle-fast-path.mjs, run by `npm run build`): Node's ES module loader alone costs a
// start-up more than bd's own code, and start-up time is the whole cost of a `bd show`.
'use strict';
const { main } = require('../dist/cli/bd/main.bundle.cjs');

main(process.argv.slice(2)).then((code) => {
  // process.exit would drop what a slow pipe has not taken yet.
  if (process.stdout.writableLength > 0) process.stdout.write('', () => process.exit(code));
  else process.exit(code);
});
