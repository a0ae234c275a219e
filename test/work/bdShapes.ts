/**
 * bd's documented JSON shapes (beads v1.0.0 `types.Issue`, shared/reference/agent-cli.md §3.2) as checks:
 * which keys an issue may carry, which it always carries, and their types. Used by the in-session tests
 * to hold `bd ready --json`, `bd show --json` and `gc hook` to upstream's shapes.
 */

const STRING = 'string';
const ISSUE_FIELDS: Record<string, string> = {
  id: STRING,
  title: STRING,
  priority: 'number',
  created_at: STRING,
  updated_at: STRING,
  status: STRING,
  issue_type: STRING,
  description: STRING,
  design: STRING,
  acceptance_criteria: STRING,
  notes: STRING,
  spec_id: STRING,
  assignee: STRING,
  owner: STRING,
  created_by: STRING,
  close_reason: STRING,
  closed_by_session: STRING,
  external_ref: STRING,
  source_system: STRING,
  closed_at: STRING,
  due_at: STRING,
  defer_until: STRING,
  estimated_minutes: 'number',
  metadata: 'object',
  labels: 'array',
  dependencies: 'array',
  comments: 'array',
  sender: STRING,
  ephemeral: 'boolean',
  pinned: 'boolean',
  parent: STRING,
};
const ALWAYS = ['id', 'title', 'priority', 'created_at', 'updated_at'];
const LIST_EXTRA: Record<string, string> = {
  dependency_count: 'number',
  dependent_count: 'number',
  comment_count: 'number',
};
const SHOW_EXTRA: Record<string, string> = {
  dependents: 'array',
  epic_total_children: 'number',
  epic_closed_children: 'number',
  epic_closeable: 'boolean',
};
const EDGE_FIELDS: Record<string, string> = {
  issue_id: STRING,
  depends_on_id: STRING,
  type: STRING,
  created_at: STRING,
  created_by: STRING,
  metadata: 'object',
  thread_id: STRING,
};
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

const typeOf = (v: unknown): string => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);

/** What is wrong with `value` as an object of `fields` (with `always` required); [] when nothing. */
function check(value: unknown, fields: Record<string, string>, always: string[], where: string): string[] {
  if (typeOf(value) !== 'object') return [`${where}: not an object`];
  const o = value as Record<string, unknown>;
  const errs: string[] = [];
  for (const k of always) if (!(k in o)) errs.push(`${where}: missing ${k}`);
  for (const [k, v] of Object.entries(o)) {
    if (!(k in fields)) errs.push(`${where}: key ${k} is not in bd's shape`);
    else if (typeOf(v) !== fields[k]) errs.push(`${where}: ${k} is ${typeOf(v)}, bd has ${fields[k]}`);
  }
  for (const k of ['created_at', 'updated_at', 'closed_at'])
    if (typeof o[k] === 'string' && !RFC3339.test(o[k])) errs.push(`${where}: ${k} is not RFC 3339`);
  return errs;
}

/** A `bd list` / `bd ready` array (what `gc hook` prints): issues with counts and edge records. */
export function listShapeErrors(value: unknown): string[] {
  if (!Array.isArray(value)) return ['not an array'];
  return value.flatMap((issue, i) => [
    ...check(issue, { ...ISSUE_FIELDS, ...LIST_EXTRA }, [...ALWAYS, ...Object.keys(LIST_EXTRA)], `[${i}]`),
    ...((issue as { dependencies?: unknown[] }).dependencies ?? []).flatMap((d, j) =>
      check(d, EDGE_FIELDS, ['issue_id', 'depends_on_id', 'type'], `[${i}].dependencies[${j}]`),
    ),
  ]);
}

/** A `bd show --json` array: issues whose dependencies are issues with a `dependency_type`. */
export function showShapeErrors(value: unknown): string[] {
  if (!Array.isArray(value)) return ['not an array'];
  return value.flatMap((issue, i) => [
    ...check(issue, { ...ISSUE_FIELDS, ...SHOW_EXTRA }, ALWAYS, `[${i}]`),
    ...((issue as { dependencies?: unknown[] }).dependencies ?? []).flatMap((d, j) =>
      check(
        d,
        { ...ISSUE_FIELDS, dependency_type: STRING },
        [...ALWAYS, 'dependency_type'],
        `[${i}].dependencies[${j}]`,
      ),
    ),
  ]);
}
