#!/usr/bin/env node
// gc-mock-acp-agent: the deterministic mock agent (bin/gc-mock-agent.mjs) speaking the Agent Client Protocol on
// stdio, built on the official SDK's agent side, so the ACP runtime is tested end to end without a model. Each
// prompt is answered with `echo: <text>` and logged as a Claude-format JSONL conversation; prompts starting with
// `/mock ` are directives:
//   think <ms>      a thought, then the answer after <ms> (session/cancel ends it: "interrupted")
//   approve <Tool>  a tool call and a session/request_permission; the choice answers ("approved" / "denied")
//   crash <n>, exit, hang                       the process exits with n (0), or the turn never ends
//   read <path>, write <path> <text>           fs/read_text_file, fs/write_text_file through the client
//   terminal <cwd>                              terminal/create of `pwd` in <cwd>, its output as the answer
//   garbage, huge, unknown                      a line that is not JSON, a 10 MB line, a request of an unknown method
// Options: --session-id <id> | --resume <id>, --log-dir <dir>, and --auth-required, which plays Claude Code's ACP
// adapter without credentials: initialize succeeds with its auth methods, session/new fails with -32603.
// It offers session/load (loadSession): the conversation of that id is replayed as session/update
// (user_message_chunk, agent_message_chunk) and continued; --no-load plays an agent without it.
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { PROTOCOL_VERSION, RequestError, agent, methods, ndJsonStream } from '@agentclientprotocol/sdk';

const opts = { sessionId: undefined, resume: undefined, logDir: undefined, authRequired: false, load: true };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i];
  if (arg === '--session-id') opts.sessionId = argv[++i];
  else if (arg === '--resume') opts.resume = argv[++i];
  else if (arg === '--log-dir') opts.logDir = argv[++i];
  else if (arg === '--auth-required') opts.authRequired = true;
  else if (arg === '--no-load') opts.load = false;
  else if (arg.startsWith('--')) fatal(`unknown argument ${arg}`);
  // A positional argument is the role prompt a provider appends (prompt_mode arg): taken and not answered.
  else opts.rolePrompt = arg;
}

function fatal(message) {
  process.stderr.write(`gc-mock-acp-agent: ${message}\n`);
  process.exit(1);
}

const logDir =
  opts.logDir ||
  process.env.GC_MOCK_LOG_DIR ||
  join(homedir(), '.claude', 'projects', process.cwd().replace(/[/.]/g, '-'));
let conversation = opts.resume ?? opts.sessionId ?? randomUUID();
let logFile = join(logDir, `${conversation}.jsonl`);
let recordCount = 0;
let lastUuid = null;
if (opts.resume !== undefined) {
  if (!existsSync(logFile)) fatal(`No conversation found with session ID: ${opts.resume}`);
  continueLog();
}

/** Reads the log of `conversation` (for --resume, session/load) so the next records continue its chain. */
function continueLog() {
  const records = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  recordCount = records.length;
  lastUuid = records.length > 0 ? records[records.length - 1].uuid : null;
  return records;
}

function log(type, content) {
  mkdirSync(logDir, { recursive: true });
  const uuid = `${conversation}-${++recordCount}`;
  const message =
    type === 'user'
      ? { role: 'user', content }
      : { role: 'assistant', content: [{ type: 'text', text: content }] };
  const record = {
    type,
    uuid,
    parentUuid: lastUuid,
    sessionId: conversation,
    timestamp: new Date().toISOString(),
    message,
  };
  appendFileSync(logFile, JSON.stringify(record) + '\n');
  lastUuid = uuid;
}

/** The turn in flight: session/cancel aborts it. */
let turn;

const say = (client, sessionId, text, kind = 'agent_message_chunk') =>
  client.notify(methods.client.session.update, {
    sessionId,
    update: { sessionUpdate: kind, content: { type: 'text', text } },
  });

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

async function directive(client, sessionId, verb, args, signal) {
  switch (verb) {
    case 'think': {
      await say(client, sessionId, 'thinking…', 'agent_thought_chunk');
      await sleep(Number(args[0] ?? 1000), signal);
      return signal.aborted ? 'interrupted' : 'done thinking';
    }
    case 'approve': {
      const toolCallId = `call-${randomUUID()}`;
      const title = args[0] ?? 'Bash';
      await client.notify(methods.client.session.update, {
        sessionId,
        update: { sessionUpdate: 'tool_call', toolCallId, title, kind: 'execute', status: 'pending' },
      });
      const answer = await client.request(methods.client.session.requestPermission, {
        sessionId,
        toolCall: { toolCallId, title },
        options: [
          { optionId: 'allow', name: 'Yes', kind: 'allow_once' },
          { optionId: 'allow_always', name: "Yes, and don't ask again", kind: 'allow_always' },
          { optionId: 'reject', name: 'No', kind: 'reject_once' },
        ],
      });
      if (answer.outcome.outcome === 'cancelled') return 'interrupted';
      return answer.outcome.optionId.startsWith('allow') ? 'approved' : 'denied';
    }
    case 'crash':
      process.exit(Number(args[0] ?? 1));
      break;
    case 'exit':
      process.exit(0);
      break;
    case 'hang':
      return new Promise(() => undefined);
    case 'read':
      try {
        return (await client.request(methods.client.fs.readTextFile, { sessionId, path: args[0] })).content;
      } catch (err) {
        return `read refused: ${err.message}`;
      }
    case 'write':
      try {
        await client.request(methods.client.fs.writeTextFile, {
          sessionId,
          path: args[0],
          content: args.slice(1).join(' '),
        });
        return 'written';
      } catch (err) {
        return `write refused: ${err.message}`;
      }
    case 'terminal':
      try {
        const term = await client.request(methods.client.terminal.create, {
          sessionId,
          command: 'pwd',
          cwd: args[0],
        });
        await client.request(methods.client.terminal.waitForExit, { sessionId, terminalId: term.terminalId });
        const out = await client.request(methods.client.terminal.output, {
          sessionId,
          terminalId: term.terminalId,
        });
        await client.request(methods.client.terminal.release, { sessionId, terminalId: term.terminalId });
        return `terminal: ${out.output.trim()}`;
      } catch (err) {
        return `terminal refused: ${err.message}`;
      }
    case 'garbage':
      process.stdout.write('this is not JSON-RPC\n');
      return 'sent garbage';
    case 'huge':
      process.stdout.write(`{"jsonrpc":"2.0","method":"x","params":"${'x'.repeat(10 * 1024 * 1024)}"}\n`);
      return 'sent a huge line';
    case 'unknown':
      await client.request('gc/no_such_method', {}).catch(() => undefined);
      return 'asked an unknown method';
    default:
      return `mock: unknown directive "${verb}"`;
  }
}

const app = agent({ name: 'gc-mock-acp-agent' })
  .onRequest(methods.agent.initialize, () => ({
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: { loadSession: opts.load },
    agentInfo: { name: opts.authRequired ? 'Claude Code' : 'gc-mock-acp-agent', version: '1.0.0' },
    authMethods: opts.authRequired
      ? [
          {
            id: 'claude-login',
            name: 'Log in with Claude Code',
            description: 'Run `claude /login` in the terminal',
          },
        ]
      : [],
  }))
  .onRequest(methods.agent.session.new, () => {
    if (opts.authRequired) throw new RequestError(-32603, 'Query closed before response received');
    return { sessionId: conversation };
  })
  .onRequest(methods.agent.session.load, async ({ params, client }) => {
    if (!opts.load) throw RequestError.methodNotFound(methods.agent.session.load);
    const file = join(logDir, `${params.sessionId}.jsonl`);
    if (!existsSync(file)) throw RequestError.resourceNotFound(file);
    conversation = params.sessionId;
    logFile = file;
    for (const record of continueLog()) {
      const content = record.message?.content;
      const text = typeof content === 'string' ? content : (content ?? []).map((b) => b.text ?? '').join('');
      await say(
        client,
        params.sessionId,
        text,
        record.type === 'user' ? 'user_message_chunk' : 'agent_message_chunk',
      );
    }
    return {};
  })
  .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
    const text = params.prompt
      .filter((b) => b.type === 'text')
      .map((b) => b.text)
      .join('');
    const controller = new AbortController();
    turn = controller;
    log('user', text);
    const [verb, ...args] = text.startsWith('/mock ') ? text.trim().split(/\s+/).slice(1) : [];
    const answer =
      verb === undefined
        ? `echo: ${text}`
        : await directive(client, params.sessionId, verb, args, controller.signal);
    await say(client, params.sessionId, answer);
    log('assistant', answer);
    if (turn === controller) turn = undefined;
    return { stopReason: controller.signal.aborted ? 'cancelled' : 'end_turn' };
  })
  .onNotification(methods.agent.session.cancel, () => turn?.abort());

const connection = app.connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
// Interrupts reach a piped agent as SIGINT to its group as well: a turn ends, the agent stays.
process.on('SIGINT', () => turn?.abort());
await connection.closed;
