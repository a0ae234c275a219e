import { MAIL_SUBCOMMANDS } from './subcommands.ts';
import type { Message } from '../../schemas/mail.ts';
import { bool, str, type FlagSpec } from '../bd/args.ts';
import { parseGcArgs } from './args.ts';
import { ApiFailure } from '../bd/client.ts';
import { GcAgentError } from './errors.ts';
import { mailIdentity } from './identity.ts';
import type { AgentIo } from './io.ts';

/** `gc mail …` over the city's mail API (messages are beads of type `message`). */

const SEND_FLAGS: FlagSpec = {
  subject: { kind: 'string', short: 's' },
  message: { kind: 'string', short: 'm' },
  to: { kind: 'string' },
  from: { kind: 'string' },
  notify: { kind: 'bool' },
};

/** A recipient as upstream accepts it: `mayor/` is `mayor`. Pure. */
const address = (to: string): string => (to.length > 1 ? to.replace(/\/+$/, '') : to);

/** Upstream's subject when none is given: the body's first line, at most 80 characters. Pure. */
const subjectOf = (body: string): string => (body.split('\n')[0] ?? '').slice(0, 80);

const stamp = (iso: string): string => iso.replace('T', ' ').slice(0, 19);

async function inboxOf(io: AgentIo, who: string): Promise<Message[]> {
  const q = new URLSearchParams({ agent: who, limit: '1000' });
  const body = (await io.client.call('GET', `${await io.client.cityPath()}/mail?${q.toString()}`)).body as {
    items: Message[] | null;
  };
  return [...(body.items ?? [])]
    .filter((m) => !m.read)
    .sort((a, b) => a.created_at.localeCompare(b.created_at));
}

/** A fixed-width table as Go's tabwriter prints it (two spaces between columns). Pure. */
function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return (
    rows
      .map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]! + 2))).join(''))
      .join('\n') + '\n'
  );
}

const path = async (io: AgentIo, id: string, verb = ''): Promise<string> =>
  `${await io.client.cityPath()}/mail/${encodeURIComponent(id)}${verb ? `/${verb}` : ''}`;

async function send(io: AgentIo, argv: string[]): Promise<number> {
  const args = parseGcArgs(argv, SEND_FLAGS, 'mail send');
  const rest = [...args.positional];
  const to = str(args, 'to') ?? rest.shift();
  if (!to) throw new GcAgentError('missing recipient');
  const body = str(args, 'message') ?? rest.join(' ');
  const subject = str(args, 'subject') || subjectOf(body);
  if (!subject) throw new GcAgentError('empty message (give -s, -m or a body)');
  const from = str(args, 'from') ?? mailIdentity(io.env);
  const sent = (
    await io.client.call('POST', `${await io.client.cityPath()}/mail`, {
      to: address(to),
      subject,
      ...(body ? { body } : {}),
      from,
    })
  ).body as Message;
  io.out(`Sent message ${sent.id} to ${address(to)}\n`);
  return 0;
}

async function inbox(io: AgentIo, argv: string[]): Promise<number> {
  const args = parseGcArgs(argv, {}, 'mail inbox');
  const who = args.positional[0] ? address(args.positional[0]) : mailIdentity(io.env);
  const msgs = await inboxOf(io, who);
  if (msgs.length === 0) io.out(`No unread messages for ${who}\n`);
  else
    io.out(
      table([
        ['ID', 'FROM', 'SUBJECT', 'BODY'],
        ...msgs.map((m) => [m.id, m.from, m.subject, m.body.replace(/\s+/g, ' ').slice(0, 60)]),
      ]),
    );
  return 0;
}

async function check(io: AgentIo, argv: string[]): Promise<number> {
  const args = parseGcArgs(argv, { inject: { kind: 'bool' } }, 'mail check');
  const inject = bool(args, 'inject');
  const who = args.positional[0] ? address(args.positional[0]) : mailIdentity(io.env);
  let msgs: Message[];
  try {
    msgs = await inboxOf(io, who);
  } catch (err) {
    if (!inject) throw err;
    process.stderr.write(`gc mail check: ${(err as Error).message}\n`);
    return 0;
  }
  if (inject) {
    if (msgs.length > 0) {
      const lines = msgs.map((m) => {
        const subject = m.subject.trim();
        return subject !== '' && subject !== m.body.trim()
          ? `- ${m.id} from ${m.from} [${m.subject}]: ${m.body}`
          : `- ${m.id} from ${m.from}: ${m.body}`;
      });
      io.out(
        `<system-reminder>\nYou have ${msgs.length} unread message(s).\n\n${lines.join('\n')}\n\nRun 'gc mail read <id>' for full details, or 'gc mail inbox' to see all.\n</system-reminder>\n`,
      );
    }
    return 0;
  }
  if (msgs.length === 0) return 1;
  io.out(`${msgs.length} unread message(s) for ${who}\n`);
  return 0;
}

async function read(io: AgentIo, argv: string[], mark: boolean): Promise<number> {
  const args = parseGcArgs(argv, {}, mark ? 'mail read' : 'mail peek');
  const id = args.positional[0];
  if (!id || args.positional.length > 1) throw new GcAgentError('accepts 1 arg(s)');
  const m = (await io.client.call('GET', await path(io, id))).body as Message;
  if (mark && !m.read) await io.client.call('POST', await path(io, id, 'read'));
  const lines = [`ID:      ${m.id}`, `From:    ${m.from}`, `To:      ${m.to}`];
  if (m.subject) lines.push(`Subject: ${m.subject}`);
  lines.push(`Sent:    ${stamp(m.created_at)}`);
  if (m.body) lines.push('', m.body);
  io.out(`${lines.join('\n')}\n`);
  return 0;
}

async function reply(io: AgentIo, argv: string[]): Promise<number> {
  const args = parseGcArgs(
    argv,
    { subject: SEND_FLAGS.subject!, message: SEND_FLAGS.message!, notify: SEND_FLAGS.notify! },
    'mail reply',
  );
  const [id, ...rest] = args.positional;
  if (!id) throw new GcAgentError('accepts at least 1 arg(s)');
  const body = str(args, 'message') ?? rest.join(' ');
  const subject = str(args, 'subject');
  const orig = (await io.client.call('GET', await path(io, id))).body as Message;
  const sent = (
    await io.client.call('POST', await path(io, id, 'reply'), {
      ...(body ? { body } : {}),
      ...(subject ? { subject } : {}),
      from: mailIdentity(io.env),
    })
  ).body as Message;
  io.out(`Replied to ${id} — sent message ${sent.id} to ${orig.from}\n`);
  return 0;
}

/** archive, delete, mark-read, mark-unread: one message each. */
async function simple(io: AgentIo, argv: string[], verb: string): Promise<number> {
  const args = parseGcArgs(argv, {}, `mail ${verb}`);
  const id = args.positional[0];
  if (!id || args.positional.length > 1) throw new GcAgentError('accepts 1 arg(s)');
  try {
    if (verb === 'delete') await io.client.call('DELETE', await path(io, id));
    else await io.client.call('POST', await path(io, id, verb === 'mark-read' ? 'read' : verb));
  } catch (err) {
    if (err instanceof ApiFailure && err.status === 409 && (verb === 'archive' || verb === 'delete')) {
      io.out(`Already ${verb === 'archive' ? 'archived' : 'deleted'} ${id}\n`);
      return 0;
    }
    throw err;
  }
  const done: Record<string, string> = {
    archive: `Archived message ${id}`,
    delete: `Deleted message ${id}`,
    'mark-read': `Marked ${id} as read`,
    'mark-unread': `Marked ${id} as unread`,
  };
  io.out(`${done[verb]}\n`);
  return 0;
}

async function count(io: AgentIo, argv: string[]): Promise<number> {
  const args = parseGcArgs(argv, {}, 'mail count');
  const who = args.positional[0] ? address(args.positional[0]) : mailIdentity(io.env);
  const q = new URLSearchParams({ agent: who });
  const c = (await io.client.call('GET', `${await io.client.cityPath()}/mail/count?${q.toString()}`))
    .body as {
    total: number;
    unread: number;
  };
  io.out(`${c.total} total, ${c.unread} unread for ${who}\n`);
  return 0;
}

/** `gc mail <subcommand> …`. */
export async function mail(io: AgentIo): Promise<number> {
  const [sub, ...argv] = io.argv;
  if (!sub) throw new GcAgentError(`missing subcommand (${MAIL_SUBCOMMANDS.join(', ')})`);
  switch (sub) {
    case 'send':
      return send(io, argv);
    case 'inbox':
      return inbox(io, argv);
    case 'check':
      return check(io, argv);
    case 'read':
      return read(io, argv, true);
    case 'peek':
      return read(io, argv, false);
    case 'reply':
      return reply(io, argv);
    case 'count':
      return count(io, argv);
    case 'archive':
    case 'delete':
    case 'mark-read':
    case 'mark-unread':
      return simple(io, argv, sub);
    default:
      throw new GcAgentError(`unknown subcommand "${sub}"`);
  }
}
