#!/usr/bin/env node
// The `gc` launcher: runs the compiled oclif CLI from dist/. Kept tiny on purpose: start-up time is
// paid by every `gc` invocation (and every script loop around one). CommonJS (bin/package.json): the
// commands agents' hooks run on every turn skip oclif and Node's ES module loader entirely
// (cli/agent/main.ts, bundled into one CommonJS file by bin/bundle-fast-path.mjs).
'use strict';
const { join } = require('node:path');

const FAST = new Set(['hook', 'prime', 'mail', 'convoy', 'runtime', 'nudge', 'handoff']);
// `gc session peek|nudge` are agent-facing too; the other session verbs stay oclif commands.
const FAST_SESSION = new Set(['peek', 'nudge']);
const fast =
  FAST.has(process.argv[2]) || (process.argv[2] === 'session' && FAST_SESSION.has(process.argv[3]));

/** Exits once stdout has handed over everything: process.exit would drop what a slow pipe has not taken. */
function exitAfterFlush(code) {
  if (process.stdout.writableLength > 0) process.stdout.write('', () => process.exit(code));
  else process.exit(code);
}

if (fast && !process.argv.includes('--help')) {
  const { runAgentCommand } = require('../dist/cli/agent/main.bundle.cjs');
  runAgentCommand(process.argv.slice(2)).then(exitAfterFlush);
} else {
  void oclif();
}

async function oclif() {
  const { flush } = await import('@oclif/core/flush');
  const { run } = await import('@oclif/core/run');

  // `gc events … | head -1` closes stdout early; that is the reader's choice, not a failure.
  process.stdout.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });

  try {
    // The package root, not this file: oclif takes the nearest package.json, and bin/ has its own.
    await run(process.argv.slice(2), join(__dirname, '..'));
    await flush();
  } catch (err) {
    // Commands report their own failures (cli/command.ts); what arrives here failed before a command ran
    // (an unknown command, say). Same shape: one line on stderr, exit status 1.
    const exit = err?.oclif?.exit;
    if (typeof exit === 'number' && String(err.message).startsWith('EEXIT')) {
      process.exitCode = exit;
    } else {
      const text = String(err?.message ?? err).split('\n')[0];
      const unknown = /^command (\S+) not found$/.exec(text);
      const message = unknown
        ? `unknown command "${unknown[1].replaceAll(':', ' ')}"; see "gc --help"`
        : text;
      process.stderr.write(`gc: ${message}\n`);
      process.exitCode = 1;
    }
  }
  // Leftover keep-alive sockets or timers must not hold a finished command open. `supervisor run` and
  // `events --follow` only get here once they have finished on purpose.
  exitAfterFlush(process.exitCode ?? 0);
}
