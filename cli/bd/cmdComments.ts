import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { bool, str, type FlagSpec } from './args.ts';
import { commentByKey, commentEntry, commentsOf, NOTES_KEY, type Comment } from './comments.ts';
import { jsonText, type BdContext } from './context.ts';
import { BdError, UnsupportedError } from './errors.ts';
import { toIssue } from './issue.ts';
import { getBead, post } from './store.ts';

export const COMMENTS_FLAGS: FlagSpec = {
  file: { kind: 'string', short: 'f' },
  author: { kind: 'string', short: 'a' },
};
export const COMMENT_FLAGS: FlagSpec = { stdin: { kind: 'bool' }, file: { kind: 'string' } };
export const NOTE_FLAGS: FlagSpec = {};

function readText(path: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (err) {
    throw new BdError(`reading ${path === '-' ? 'stdin' : path}: ${(err as Error).message}`);
  }
}

/** The comment's text: from the file (`-` = stdin) or the words, never both, never empty. */
function textOf(words: readonly string[], file: string | undefined, stdin: boolean): string {
  if ((file !== undefined || stdin) && words.length > 0)
    throw new BdError('give the comment text as arguments or from a file/stdin, not both');
  const text = stdin ? readText('-') : file !== undefined ? readText(file) : words.join(' ');
  const trimmed = text.replace(/\s+$/, '');
  if (trimmed.trim() === '') throw new BdError('comment text required');
  return trimmed;
}

/** Adds one comment to `id` (which must exist) and answers it as bd prints it. */
async function addComment(ctx: BdContext, id: string, author: string, text: string): Promise<Comment> {
  await getBead(ctx.client, id);
  const [key, value] = commentEntry(author, text, new Date(), randomBytes(3).toString('hex'));
  await post(ctx.client, id, 'update', { metadata: { [key]: value } });
  const mine = commentByKey(await getBead(ctx.client, id), key);
  if (!mine) throw new BdError(`comment on ${id} was not stored`);
  return mine;
}

function printAdded(ctx: BdContext, c: Comment): void {
  ctx.out(ctx.json ? jsonText(c) : `Comment added to ${c.issue_id}`);
}

/** `bd comments <id>` (list) and `bd comments add <id> [text] [-f file] [-a author]`. */
export async function commentsCmd(ctx: BdContext): Promise<void> {
  const [first, ...rest] = ctx.args.positional;
  if (first === 'add') {
    const [id, ...words] = rest;
    if (!id) throw new BdError('comments add requires an issue ID');
    const file = str(ctx.args, 'file');
    const text = textOf(words, file, false);
    printAdded(ctx, await addComment(ctx, id, str(ctx.args, 'author') || ctx.actor, text));
    return;
  }
  if (str(ctx.args, 'file') !== undefined || str(ctx.args, 'author') !== undefined)
    throw new UnsupportedError('-f/--file and -a/--author are flags of "bd comments add"');
  if (!first || rest.length > 0) throw new BdError('comments requires exactly one issue ID');
  const comments = commentsOf(await getBead(ctx.client, first));
  if (ctx.json) ctx.out(jsonText(comments));
  else if (comments.length === 0) ctx.out(`No comments on ${first}`);
  else ctx.out([`Comments on ${first}:`, ...comments.map(commentText)].join('\n'));
}

/** One comment in bd's text layout: `[author] at <time>` then the indented text. Pure. */
export const commentText = (c: Comment): string =>
  `[${c.author}] at ${c.created_at.replace('T', ' ').replace(/Z$/, '')}\n${c.text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n')}`;

/** `bd comment <id> [text…] [--stdin|--file f]`: one comment by the actor. */
export async function commentCmd(ctx: BdContext): Promise<void> {
  const [id, ...words] = ctx.args.positional;
  if (!id) throw new BdError('comment requires an issue ID');
  const text = textOf(words, str(ctx.args, 'file'), bool(ctx.args, 'stdin'));
  printAdded(ctx, await addComment(ctx, id, ctx.actor, text));
}

/** `bd note <id> [text…]`: appends a line to the issue's notes; answers the updated issue. */
export async function noteCmd(ctx: BdContext): Promise<void> {
  const [id, ...words] = ctx.args.positional;
  if (!id) throw new BdError('note requires an issue ID');
  const text = textOf(words, undefined, false);
  const before = await getBead(ctx.client, id);
  const old = before.metadata?.[NOTES_KEY] ?? '';
  await post(ctx.client, id, 'update', { metadata: { [NOTES_KEY]: old ? `${old}\n${text}` : text } });
  const after = await getBead(ctx.client, id);
  ctx.out(ctx.json ? jsonText(toIssue(after)) : `✓ Added note to ${id}`);
}
