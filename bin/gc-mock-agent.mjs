#!/usr/bin/env node
// gc-mock-agent: a deterministic stand-in for an AI coding CLI, so sessions are tested end to end without
// one. It shows a ready prompt, answers each input line with `echo: <text>` and keeps a Claude-format JSONL
// conversation log. Input lines starting with `/mock ` are test directives (think, approve, crash, hang, exit).
//
// Input is read byte by byte, on a terminal (raw mode, as Claude reads it) and on pipes alike, so that a
// single key answers an approval prompt and Ctrl-C (byte 0x03, or SIGINT on pipes) interrupts a think.
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { loadHooks, runHooks } from './mock-agent/hooks.mjs';
import { startWorker } from './mock-agent/worker.mjs';

const usage =
  'usage: gc-mock-agent [--session-id <id> | --resume <id>] [--log-dir <dir>] [--prompt <text>] [--settings <file>] [--worker] [first message]';

function parseArgs(argv) {
  const opts = {
    sessionId: undefined,
    resume: undefined,
    logDir: undefined,
    prompt: '❯ ',
    settings: undefined,
    worker: false,
    first: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) fatal(`${arg} needs a value\n${usage}`);
      return v;
    };
    if (arg === '--session-id') opts.sessionId = value();
    else if (arg === '--resume') opts.resume = value();
    else if (arg === '--log-dir') opts.logDir = value();
    else if (arg === '--prompt') opts.prompt = value();
    else if (arg === '--settings') opts.settings = value();
    else if (arg === '--worker') opts.worker = true;
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(usage + '\n');
      process.exit(0);
    } else if (arg.startsWith('--')) fatal(`unknown option ${arg}\n${usage}`);
    else opts.first = opts.first === undefined ? arg : `${opts.first} ${arg}`;
  }
  return opts;
}

function fatal(message) {
  process.stderr.write(`gc-mock-agent: ${message}\n`);
  process.exit(1);
}

const opts = parseArgs(process.argv.slice(2));
const cwd = process.cwd();
// Claude's project folder: the absolute working directory with `/` and `.` turned into `-`.
// An empty GC_MOCK_LOG_DIR counts as unset.
const logDir =
  opts.logDir ||
  process.env.GC_MOCK_LOG_DIR ||
  join(homedir(), '.claude', 'projects', cwd.replace(/[/.]/g, '-'));
const sessionId = opts.resume ?? opts.sessionId ?? randomUUID();
const logFile = join(logDir, `${sessionId}.jsonl`);

// The conversation's parent chain continues across a resume; uuids are `<session-id>-<n>`.
let recordCount = 0;
let lastUuid = null;
if (opts.resume !== undefined) {
  if (!existsSync(logFile)) fatal(`No conversation found with session ID: ${opts.resume}`);
  const lines = readFileSync(logFile, 'utf8').split('\n').filter(Boolean);
  recordCount = lines.length;
  for (const line of lines) {
    try {
      const uuid = JSON.parse(line).uuid;
      if (typeof uuid === 'string') lastUuid = uuid;
    } catch {
      // A torn last line (a crash mid-write) does not stop the resume.
    }
  }
} else {
  mkdirSync(logDir, { recursive: true });
}

function record(type, message) {
  const uuid = `${sessionId}-${++recordCount}`;
  const entry = {
    type,
    uuid,
    parentUuid: lastUuid,
    sessionId,
    timestamp: new Date().toISOString(),
    cwd,
    message,
  };
  appendFileSync(logFile, JSON.stringify(entry) + '\n');
  lastUuid = uuid;
}
const logUser = (text) => record('user', { role: 'user', content: text });
// A reply ends its turn (`stop_reason: end_turn`), so readers of the log see the agent idle again.
const logAssistant = (text) =>
  record('assistant', { role: 'assistant', content: [{ type: 'text', text }], stop_reason: 'end_turn' });

const tty = process.stdin.isTTY === true;
// Raw mode turns off the terminal's output processing too, so lines end in CR LF there.
const nl = tty ? '\r\n' : '\n';
const say = (text) => process.stdout.write(text + nl);
const showPrompt = () => process.stdout.write(opts.prompt);

// idle: reading lines; thinking: a timer runs, lines queue; approving: one key decides; hung: deaf.
let mode = 'idle';
let line = '';
const queued = [];
let thinkTimer;
let approveTool = '';
let approveToolUse = '';
let lastWasCR = false;
let exiting = false;
let inputEnded = false;

function handleLine(text) {
  if (mode === 'thinking') {
    queued.push(text);
    return;
  }
  if (mode === 'approving') {
    decide(text.trim().charAt(0).toLowerCase());
    return;
  }
  if (text.startsWith('/mock ')) return directive(text);
  if (text.trim() === '') return showPrompt();
  if (hasHooks('UserPromptSubmit') || hasHooks('Stop')) return hookedTurn(text);
  // Both records are on disk before the reply shows: whoever sees `echo:` can read them.
  logUser(text);
  logAssistant(`echo: ${text}`);
  say(`echo: ${text}`);
  showPrompt();
}

// Claude's lifecycle points: what UserPromptSubmit prints is context for the turn; Stop runs as it ends.
const hooks = loadHooks(cwd, process.env, opts.settings);
const hasHooks = (event) => (hooks.events[event] ?? []).length > 0;
const injected = [];
async function hook(event) {
  const out = await runHooks(hooks, event, cwd, process.env);
  if (out.trim() !== '') {
    injected.push({ event, text: out });
    say(`hook ${event}: ${out.trim().split('\n')[0]}`);
  }
  return out;
}

async function hookedTurn(text) {
  mode = 'thinking';
  await hook('UserPromptSubmit');
  logUser(text);
  logAssistant(`echo: ${text}`);
  say(`echo: ${text}`);
  await hook('Stop');
  backToIdle();
}

function directive(text) {
  const [, verb = '', arg = '', ...rest] = text.trim().split(/\s+/);
  switch (verb) {
    case 'think': {
      const ms = Number(arg);
      if (!Number.isFinite(ms) || ms < 0)
        return answerError(`think needs milliseconds, got ${JSON.stringify(arg)}`);
      logUser(text);
      mode = 'thinking';
      say('thinking… (esc to interrupt)');
      thinkTimer = setTimeout(() => {
        logAssistant('echo: done thinking');
        say('echo: done thinking');
        backToIdle();
      }, ms);
      return;
    }
    case 'approve': {
      approveTool = arg || 'Bash';
      const input = rest.join(' ');
      mode = 'approving';
      // The tool call is in the log (the turn goes on: stop_reason tool_use) before the menu shows.
      approveToolUse = `toolu_${sessionId}_${recordCount + 1}`;
      record('assistant', {
        role: 'assistant',
        content: [{ type: 'tool_use', id: approveToolUse, name: approveTool, input: { command: input } }],
        stop_reason: 'tool_use',
      });
      // The shape Claude draws, which upstream's pane parser recognises: a tool header, then the menu.
      say(`● ${approveTool}(${input})`);
      say('This command requires approval');
      say('Do you want to proceed?');
      say('❯ 1. Yes');
      say("  2. Yes, and don't ask again");
      say('  3. No');
      return;
    }
    case 'crash': {
      const code = arg === '' ? 1 : Number(arg);
      return exit(Number.isInteger(code) && code >= 0 && code <= 255 ? code : 1);
    }
    case 'hang':
      mode = 'hung';
      // Deaf but alive, also once stdin has ended.
      setInterval(() => {}, 1 << 30);
      return;
    case 'exit':
      return exit(0);
    case 'work':
      startWork();
      return showPrompt();
    default:
      return answerError(`unknown directive ${JSON.stringify(verb)}`);
  }
}

function answerError(message) {
  say(`mock: ${message}`);
  showPrompt();
}

function backToIdle() {
  mode = 'idle';
  showPrompt();
  while ((mode === 'idle' || mode === 'approving') && queued.length > 0) handleLine(queued.shift());
  exitIfDone();
}

// On a pipe, the end of input ends the agent once the queued lines are answered (a hung agent stays).
function exitIfDone() {
  if (inputEnded && !exiting && (mode === 'idle' || mode === 'approving')) exit(0);
}

function interrupt() {
  if (mode !== 'thinking') return;
  clearTimeout(thinkTimer);
  logUser('[Request interrupted by user]');
  say('interrupted');
  backToIdle();
}

function decide(key) {
  const approved = key === '1' || key === '2' || key === 'y';
  const denied = key === '3' || key === 'n';
  if (!approved && !denied) return false;
  const decision = approved ? 'approved' : 'denied';
  // The decision is in the conversation: the tool's result, then the reply that ends the turn.
  record('user', {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: approveToolUse, content: `${approveTool} ${decision}` }],
  });
  logAssistant(`echo: ${approveTool} ${decision}`);
  say(decision);
  backToIdle();
  return true;
}

function exit(code) {
  exiting = true;
  // stdout may be a pipe: let what was written drain before the process ends.
  process.stdout.write('', () => process.exit(code));
}

function onData(chunk) {
  for (const ch of chunk.toString('utf8')) {
    if (mode === 'hung' || exiting) return;
    // CR LF is one line end; so is the newline that follows an approval key on a pipe.
    const afterCR = lastWasCR;
    lastWasCR = ch === '\r';
    if (ch === '\n' && afterCR) continue;
    if (ch === '\x03' || ch === '\x1b') {
      interrupt();
      continue;
    }
    if (ch === '\x04' && line === '') return exit(0);
    if (mode === 'approving') {
      if (decide(ch.toLowerCase())) lastWasCR = true;
      continue;
    }
    if (ch === '\r' || ch === '\n') {
      const text = line;
      line = '';
      if (tty) process.stdout.write(nl);
      handleLine(text);
    } else if (ch === '\x7f' || ch === '\b') {
      if (line.length > 0) {
        line = [...line].slice(0, -1).join('');
        if (tty) process.stdout.write('\b \b');
      }
    } else if (ch >= ' ') {
      line += ch;
      if (tty) process.stdout.write(ch);
    }
  }
}

if (tty) process.stdin.setRawMode(true);
process.on('SIGINT', interrupt);
process.stdin.on('data', onData);
process.stdin.on('end', () => {
  inputEnded = true;
  exitIfDone();
});

let worker;
function startWork() {
  worker ??= startWorker({
    cwd,
    env: process.env,
    hooks,
    say,
    log: (text) => logAssistant(text),
    onIdle: () => {},
  });
}

say(`gc-mock-agent (session ${sessionId})`);
say(`log: ${logFile}`);
if (hasHooks('SessionStart')) await hook('SessionStart');
showPrompt();
if (opts.worker || process.env.GC_MOCK_WORKER === '1') startWork();
if (opts.first !== undefined) {
  if (tty) process.stdout.write(opts.first + nl);
  handleLine(opts.first);
}
