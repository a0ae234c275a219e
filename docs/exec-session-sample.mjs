#!/usr/bin/env node
// A sample session script for the exec runtime (`[session] provider = "exec:/path/to/exec-session-sample.mjs"`):
// sessions as plain background processes, no terminal. It implements upstream's exec protocol, so it is also a
// template for scripts that run sessions elsewhere (a container, a remote host):
//
//   <script> <operation> <session-name> [args...]     exit 0 ok, 1 error (message on stderr), 2 unknown operation
//
//   start <name>                 JSON start config on stdin: work_dir, command, env, pre_start, ...
//   stop <name>                  idempotent
//   interrupt <name>             SIGINT to the session's process group; best effort
//   is-running <name>            prints true or false
//   process-alive <name>         process names on stdin, one a line; prints true or false
//   nudge <name>                 the text on stdin becomes a line of the session's input
//   send-keys <name> <key>...    bare keys (Enter, Escape, C-c, 1, ...)
//   peek <name> <lines>          the last lines of output (0: all kept)
//   list-running <prefix>        one running session name a line
//   get-meta / set-meta / remove-meta <name> <key>     set-meta reads the value on stdin
//   get-last-activity <name>     RFC 3339 time of the last output
//   clear-scrollback <name>, copy-to <name> <src> <rel-dst>
//
// Each session is a folder under $GC_EXEC_SESSION_DIR (default: <tmp>/gc-exec-sessions-<uid>): `in` (a FIFO the
// session reads its input from), `out` (its stdout and stderr), `pid` (its process group), `meta/`, `config.json`.
// No dependencies beyond Node and a POSIX shell with mkfifo.
import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const root = process.env.GC_EXEC_SESSION_DIR || join(tmpdir(), `gc-exec-sessions-${process.getuid?.() ?? 0}`);
const [op, name, ...rest] = process.argv.slice(2);

const fail = (message) => {
  process.stderr.write(`${message}\n`);
  process.exit(1);
};
const dirOf = (session) => join(root, encodeURIComponent(session));
const readStdin = () => {
  try {
    return readFileSync(0, 'utf8');
  } catch {
    return '';
  }
};

/** The session's process group leader, if it runs (a zombie has ended). */
function leader(session) {
  let pid;
  try {
    pid = Number(readFileSync(join(dirOf(session), 'pid'), 'utf8'));
  } catch {
    return undefined;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return /^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2)) ? undefined : pid;
  } catch {
    return undefined;
  }
}

/** Whether a process of the group has not ended (a zombie no one reaped has). */
function groupAlive(pgid) {
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && !/^[ZX]/.test(fields[0])) return true;
    } catch {
      // The process ended while we looked.
    }
  }
  return false;
}

function signalGroup(pid, sig) {
  try {
    process.kill(-pid, sig);
    return true;
  } catch {
    return false;
  }
}

function needSession(session) {
  if (!session) fail(`${op}: a session name is required`);
  if (!existsSync(dirOf(session))) fail(`no session ${session}`);
  return dirOf(session);
}

/** Input for the session: the FIFO is held open by the session itself, so this never blocks. */
function input(session, text) {
  appendFileSync(join(dirOf(session), 'in'), text);
}

function start(session) {
  const cfg = JSON.parse(readStdin() || '{}');
  if (leader(session) !== undefined) fail(`session ${session} already exists`);
  const dir = dirOf(session);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'meta'), { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify(cfg));
  writeFileSync(join(dir, 'out'), '');
  const fifo = spawnSync('mkfifo', [join(dir, 'in')], { encoding: 'utf8' });
  if (fifo.status !== 0) fail(`mkfifo: ${fifo.stderr || fifo.error?.message}`);
  const env = { ...process.env };
  for (const [key, value] of Object.entries(cfg.env ?? {})) {
    if (value === '') delete env[key];
    else env[key] = value;
  }
  const cwd = cfg.work_dir || process.cwd();
  for (const command of cfg.pre_start ?? []) {
    const r = spawnSync('sh', ['-c', command], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.status !== 0) process.stderr.write(`pre_start ${JSON.stringify(command)} failed: ${r.stderr}\n`);
  }
  // The wrapper holds the FIFO open read-write (its reader never sees end of input), ignores the interrupt
  // meant for the agent (a trap, which the agent does not inherit) and is the group leader `stop` ends.
  const wrapper = 'exec 3<>"$1"; trap : INT; sh -c "$2" <&3 >>"$3" 2>&1; echo $? > "$4"';
  const child = spawn(
    'sh',
    [
      '-c',
      wrapper,
      'wrapper',
      join(dir, 'in'),
      cfg.command || 'exec sh',
      join(dir, 'out'),
      join(dir, 'exit'),
    ],
    { cwd, env, detached: true, stdio: 'ignore' },
  );
  writeFileSync(join(dir, 'pid'), String(child.pid));
  child.unref();
}

async function stop(session) {
  const pid = leader(session);
  if (pid !== undefined || existsSync(join(dirOf(session), 'pid'))) {
    const group = pid ?? Number(readFileSync(join(dirOf(session), 'pid'), 'utf8'));
    // The group outlives its leader when a child stays behind: end every member.
    if (signalGroup(group, 'SIGTERM')) {
      const deadline = Date.now() + 2000;
      while (Date.now() < deadline && groupAlive(group)) await new Promise((r) => setTimeout(r, 20));
      if (groupAlive(group)) signalGroup(group, 'SIGKILL');
    }
  }
  rmSync(dirOf(session), { recursive: true, force: true });
}

function peek(session, count) {
  const dir = needSession(session);
  const lines = readFileSync(join(dir, 'out'), 'utf8')
    .split('\n')
    .map((line) => {
      // eslint-disable-next-line no-control-regex
      const plain = line.replace(/\x1b(?:\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])/g, '').replace(/\r+$/, '');
      return plain.slice(plain.lastIndexOf('\r') + 1).trimEnd();
    });
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const n = Number(count);
  process.stdout.write((n > 0 ? lines.slice(-n) : lines).join('\n'));
}

const KEYS = { Enter: '\n', Escape: '\x1b', Tab: '\t', Space: ' ', BSpace: '\x7f', 'C-d': '\x04' };

switch (op) {
  case 'start':
    start(name);
    break;
  case 'stop':
    await stop(name);
    break;
  case 'interrupt': {
    const pid = leader(name);
    if (pid !== undefined) signalGroup(pid, 'SIGINT');
    break;
  }
  case 'is-running':
    process.stdout.write(leader(name) !== undefined ? 'true' : 'false');
    break;
  case 'process-alive': {
    const wanted = readStdin().split('\n').filter(Boolean);
    const pid = leader(name);
    let alive = pid !== undefined && wanted.length === 0;
    if (pid !== undefined && !alive) {
      for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
        try {
          const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
          const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
          if (pgrp === pid && wanted.includes(comm)) alive = true;
        } catch {
          // The process ended while we looked.
        }
      }
    }
    process.stdout.write(alive ? 'true' : 'false');
    break;
  }
  case 'nudge': {
    const text = readStdin();
    if (leader(name) === undefined) break;
    // Shown as a terminal echoes typed input, then read by the session as one line.
    appendFileSync(join(dirOf(name), 'out'), `${text}\n`);
    input(name, `${text}\n`);
    break;
  }
  case 'send-keys': {
    const pid = leader(name);
    if (pid === undefined) fail(`session ${name} is not running`);
    for (const key of rest) {
      if (key === 'C-c') signalGroup(pid, 'SIGINT');
      else input(name, KEYS[key] ?? key);
    }
    break;
  }
  case 'peek':
    peek(name, rest[0] ?? '0');
    break;
  case 'list-running': {
    const prefix = name ?? '';
    const names = existsSync(root) ? readdirSync(root).map(decodeURIComponent) : [];
    const running = names.filter((n) => n.startsWith(prefix) && leader(n) !== undefined);
    process.stdout.write(running.join('\n'));
    break;
  }
  case 'get-meta': {
    const file = join(needSession(name), 'meta', encodeURIComponent(rest[0] ?? ''));
    if (existsSync(file)) process.stdout.write(readFileSync(file, 'utf8'));
    break;
  }
  case 'set-meta':
    writeFileSync(join(needSession(name), 'meta', encodeURIComponent(rest[0] ?? '')), readStdin());
    break;
  case 'remove-meta':
    rmSync(join(needSession(name), 'meta', encodeURIComponent(rest[0] ?? '')), { force: true });
    break;
  case 'get-last-activity': {
    const dir = needSession(name);
    process.stdout.write(
      statSync(join(dir, 'out'))
        .mtime.toISOString()
        .replace(/\.\d+Z$/, 'Z'),
    );
    break;
  }
  case 'clear-scrollback':
    truncateSync(join(needSession(name), 'out'));
    break;
  case 'copy-to': {
    const cfg = JSON.parse(readFileSync(join(needSession(name), 'config.json'), 'utf8'));
    const target = join(cfg.work_dir || process.cwd(), rest[1] ?? '');
    mkdirSync(dirname(target), { recursive: true });
    cpSync(rest[0], target, { recursive: true });
    break;
  }
  case 'attach':
    fail(`session ${name} runs as a plain process: there is no terminal to attach to (use peek and nudge)`);
    break;
  default:
    // Unknown operations (check-image included) succeed: scripts stay valid as the protocol grows.
    process.exit(2);
}
