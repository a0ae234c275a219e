import type { Dep } from '../../schemas/beads.ts';
import type { StoredBead } from './model.ts';

/**
 * The statuses a bead may take: upstream's runtime uses open, in_progress and closed; the others are
 * the beads CLI's. Anything else is refused rather than stored as a typo.
 */
export const BEAD_STATUSES: ReadonlySet<string> = new Set([
  'open',
  'in_progress',
  'blocked',
  'deferred',
  'closed',
  'pinned',
  'hooked',
]);

/** Mutable view of a bead while a command builds it. */
export type BeadDraft = { -readonly [K in keyof StoredBead]: StoredBead[K] };

/**
 * The bead with its fields in one canonical order and empty optional fields left out (empty strings,
 * arrays and maps, as upstream's `omitempty`), so equal beads serialise equally. This is a pure function.
 */
export function compactBead(b: BeadDraft): StoredBead {
  const out: BeadDraft = {
    id: b.id,
    title: b.title,
    status: b.status,
    issue_type: b.issue_type,
    created_at: b.created_at,
  };
  if (b.updated_at) out.updated_at = b.updated_at;
  if (b.description) out.description = b.description;
  if (b.assignee) out.assignee = b.assignee;
  if (b.priority !== undefined) out.priority = b.priority;
  if (b.labels && b.labels.length > 0) out.labels = b.labels;
  if (b.metadata && Object.keys(b.metadata).length > 0) out.metadata = b.metadata;
  if (b.parent) out.parent = b.parent;
  if (b.defer_until) out.defer_until = b.defer_until;
  if (b.dependencies && b.dependencies.length > 0) out.dependencies = b.dependencies;
  if (b.from) out.from = b.from;
  if (b.ephemeral) out.ephemeral = b.ephemeral;
  if (b.needs && b.needs.length > 0) out.needs = b.needs;
  if (b.no_history) out.no_history = b.no_history;
  if (b.ref) out.ref = b.ref;
  return out;
}

/** `labels` without blanks and duplicates, first occurrence kept. This is a pure function. */
export function uniqueLabels(labels: Iterable<string>): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const label of labels) {
    if (label === '' || seen.has(label)) continue;
    seen.add(label);
    out.push(label);
  }
  return out;
}

export const hasLabel = (bead: StoredBead, label: string): boolean => bead.labels?.includes(label) ?? false;

/** The value after `prefix` of the first label that starts with it. This is a pure function. */
export function labelValue(bead: StoredBead, prefix: string): string | undefined {
  const label = bead.labels?.find((l) => l.startsWith(prefix));
  return label === undefined ? undefined : label.slice(prefix.length);
}

/** The dependency edges of a bead (none as an empty array). */
export const depsOf = (bead: StoredBead): readonly Dep[] => bead.dependencies ?? [];

/** True when `s` is an RFC 3339 instant JavaScript can read. This is a pure function. */
export const isInstant = (s: string): boolean =>
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(s) &&
  Number.isFinite(Date.parse(s));
