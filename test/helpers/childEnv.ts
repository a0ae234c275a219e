import { existsSync } from 'node:fs';

/**
 * How a test starts a Node process (`gc`, a supervisor) without tap's per-process hook: @tapjs/processinfo
 * wraps child_process and puts its loader back into every Node child's NODE_OPTIONS, which more than doubles
 * a `gc` start (0.87 s against 0.36 s measured), and the CLI tests start hundreds. `env -u NODE_OPTIONS`
 * execs node in place (same pid, same signals) with the option gone. Coverage of those children is not
 * collected then (the suite does not gate on coverage).
 */
export function nodeChild(args: string[]): [command: string, args: string[]] {
  // By absolute path: some tests run `gc` with a PATH that holds only their stubs.
  return existsSync(ENV)
    ? [ENV, ['-u', 'NODE_OPTIONS', process.execPath, ...args]]
    : [process.execPath, args];
}

const ENV = '/usr/bin/env';
