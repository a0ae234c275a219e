import type { Bead } from '../../schemas/beads.ts';
import { commentCount, commentsOf, isCommentOrNotesKey, NOTES_KEY } from './comments.ts';

/**
 * bd's issue JSON (beads v1.0.0 `types.Issue`) from our wire bead: `id`, `title`, `priority`,
 * `created_at`, `updated_at` always; the rest only when set. Our bookkeeping metadata (idempotency keys)
 * stays out. Pure.
 */
export type Issue = Record<string, unknown> & { id: string; title: string };

const HIDDEN_METADATA = new Set(['gc.idempotency_key', 'gc.request_sha256']);
/** Metadata bd shows as `metadata`: not our bookkeeping, not the comments and notes kept there. */
const shownMeta = (k: string): boolean => !HIDDEN_METADATA.has(k) && !isCommentOrNotesKey(k);

export function toIssue(b: Bead): Issue {
  const out: Issue = {
    id: b.id,
    title: b.title,
    priority: b.priority ?? 2,
    created_at: b.created_at,
    updated_at: b.updated_at ?? b.created_at,
    status: b.status,
    issue_type: b.issue_type,
  };
  if (b.description) out.description = b.description;
  if (b.assignee) out.assignee = b.assignee;
  const meta = Object.entries(b.metadata ?? {}).filter(([k]) => shownMeta(k));
  if (b.metadata?.[NOTES_KEY]) out.notes = b.metadata[NOTES_KEY];
  if (b.metadata?.close_reason) out.close_reason = b.metadata.close_reason;
  if (meta.length > 0) out.metadata = Object.fromEntries(meta);
  if (b.labels && b.labels.length > 0) out.labels = [...b.labels];
  if (b.parent) out.parent = b.parent;
  if (b.defer_until) out.defer_until = b.defer_until;
  if (b.ephemeral) out.ephemeral = true;
  if (b.from) out.sender = b.from;
  return out;
}

/** The edges a bead depends on, as bd's dependency records. Pure. */
export const edgesOf = (b: Bead): { issue_id: string; depends_on_id: string; type: string }[] =>
  (b.dependencies ?? []).map((d) => ({ issue_id: d.issue_id, depends_on_id: d.depends_on_id, type: d.type }));

/**
 * A `bd list`/`bd ready` element: the issue plus its dependency records and counts (`dependent_count` is
 * counted over `all`, the beads the command read). Pure.
 */
export function listIssue(b: Bead, all: readonly Bead[]): Issue {
  const deps = edgesOf(b);
  const out = toIssue(b);
  if (deps.length > 0) out.dependencies = deps;
  out.dependency_count = deps.length;
  out.dependent_count = all.filter((o) =>
    (o.dependencies ?? []).some((d) => d.depends_on_id === b.id),
  ).length;
  out.comment_count = commentCount(b);
  return out;
}

const STATUS_ICON: Record<string, string> = { open: '○', in_progress: '◐', blocked: '●', closed: '✓' };

/** bd's `--flat` line: `<icon> <id> [P<n>] [<type>] @<assignee> [labels] - <title>`. Pure. */
export function flatLine(b: Bead): string {
  const parts = [STATUS_ICON[b.status] ?? '○', b.id, `[P${b.priority ?? 2}]`, `[${b.issue_type}]`];
  if (b.assignee) parts.push(`@${b.assignee}`);
  if (b.labels && b.labels.length > 0) parts.push(`[${b.labels.join(', ')}]`);
  return `${parts.join(' ')} - ${b.title}`;
}

/** bd's sort for list and ready: priority ascending, newest first, then id. Pure. */
export function bdOrder(a: Bead, b: Bead): number {
  return (
    (a.priority ?? 2) - (b.priority ?? 2) ||
    b.created_at.localeCompare(a.created_at) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/** `bd show`'s text: a header line, the main fields, then the sections that have content. Pure. */
export function showText(b: Bead, children: readonly Bead[]): string {
  const lines = [
    `${STATUS_ICON[b.status] ?? '○'} ${b.id} · ${b.title}   [P${b.priority ?? 2} · ${b.status.toUpperCase()}]`,
    `Assignee: ${b.assignee || '-'} · Type: ${b.issue_type}`,
    `Created: ${b.created_at.slice(0, 10)} · Updated: ${(b.updated_at ?? b.created_at).slice(0, 10)}`,
  ];
  const section = (name: string, body: string[]): void => {
    if (body.length > 0) lines.push('', name, ...body);
  };
  section('DESCRIPTION', b.description ? [b.description] : []);
  const notes = b.metadata?.[NOTES_KEY];
  section('NOTES', notes ? [notes] : []);
  section('LABELS:', b.labels && b.labels.length > 0 ? [b.labels.join(', ')] : []);
  const meta = Object.entries(b.metadata ?? {})
    .filter(([k]) => shownMeta(k))
    .sort(([x], [y]) => (x < y ? -1 : 1));
  section(
    'METADATA',
    meta.map(([k, v]) => `  ${k}: ${v}`),
  );
  section('PARENT', b.parent ? [`  ↑ ${b.parent}`] : []);
  section(
    'DEPENDS ON',
    edgesOf(b).map((d) => `  → ${d.depends_on_id} (${d.type})`),
  );
  section(
    'CHILDREN',
    children.map((c) => `  ↳ ${c.id}: ${c.title} [${c.status}]`),
  );
  section(
    'COMMENTS',
    commentsOf(b).map((c) => `  [${c.author}] ${c.created_at.slice(0, 16).replace('T', ' ')}: ${c.text}`),
  );
  return lines.join('\n');
}
