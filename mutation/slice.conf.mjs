// Stryker's configuration for one slice of npm run mutate: STRYKER_SLICE=<name> npx stryker run
// mutation/slice.conf.mjs (mutation/run.mjs sets it). No TypeScript checker: tsx runs a mutant that would
// not compile as the JavaScript it is, and a test must kill it like any other; with the checker a mutant
// in a widely imported file retypes the program and costs seconds to minutes.
import { slices } from './slices.mjs';

const name = process.env.STRYKER_SLICE;
const slice = slices[name];
if (!slice) throw new Error(`STRYKER_SLICE must be one of ${Object.keys(slices).join(', ')} (got ${name})`);

export default {
  packageManager: 'npm',
  testRunner: 'tap',
  tap: { testFiles: slice.testFiles, nodeArgs: ['--import', 'tsx'], forceBail: true },
  checkers: [],
  tsconfigFile: 'tsconfig.json',
  mutate: slice.mutate,
  ignorePatterns: ['dist', 'reports', '.ci', '.stryker-tmp', '/mutation'],
  incremental: true,
  incrementalFile: `mutation/${name}.incremental.json`,
  reporters: ['html', 'json', 'clear-text', 'progress'],
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  concurrency: 2,
  timeoutMS: 20000,
  tempDirName: '.stryker-tmp',
};
