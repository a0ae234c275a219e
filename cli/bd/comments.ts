import type { Bead } from '../../schemas/beads.ts';

/**
 * Comments and notes as the bead store keeps them: our beads API has no comment surface, so each comment
 * is one metadata entry `gc.comment.<ms>.<hex>` whose value is `{"author","text","created_at"}` as JSON,
 * and notes are the metadata entry `gc.notes`. One metadata key per comment means two agents commenting
 * at once never overwrite each other (an update merges metadata key by key). bd's comment `id` is the
 * comment's position, oldest first, 1-based.
 */

export const COMMENT_PREFIX = 'gc.comment.';
export const NOTES_KEY = 'gc.notes';

/** bd's comment JSON (beads v1.0.0 `types.Comment`). */
export interface Comment {
  id: number;
  issue_id: string;
  author: string;
  text: string;
  created_at: string;
}

/** Whether a metadata key is our comment or notes bookkeeping (kept out of bd's `metadata`). Pure. */
export const isCommentOrNotesKey = (key: string): boolean =>
  key === NOTES_KEY || key.startsWith(COMMENT_PREFIX);

/** A bead's comments, oldest first; an entry that does not decode is left out. Pure. */
export const commentsOf = (b: Bead): Comment[] => keyedComments(b).map(({ comment }) => comment);

/** The comment a metadata key holds, if it is one of `b`'s. Pure. */
export const commentByKey = (b: Bead, key: string): Comment | undefined =>
  keyedComments(b).find((c) => c.key === key)?.comment;

function keyedComments(b: Bead): { key: string; comment: Comment }[] {
  const entries = Object.entries(b.metadata ?? {})
    .filter(([k]) => k.startsWith(COMMENT_PREFIX))
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  const out: { key: string; comment: Comment }[] = [];
  for (const [key, raw] of entries) {
    try {
      const v = JSON.parse(raw) as Partial<Record<'author' | 'text' | 'created_at', unknown>>;
      if (typeof v.text !== 'string') continue;
      const comment: Comment = {
        id: out.length + 1,
        issue_id: b.id,
        author: typeof v.author === 'string' ? v.author : 'unknown',
        text: v.text,
        created_at: typeof v.created_at === 'string' ? v.created_at : b.created_at,
      };
      out.push({ key, comment });
    } catch {
      // Not one of ours: skipped.
    }
  }
  return out;
}

/** The number of comments a bead carries (bd's `comment_count`). Pure. */
export const commentCount = (b: Bead): number => commentsOf(b).length;

/**
 * The metadata entry that adds one comment. The key sorts by time (zero-padded milliseconds), and its
 * random suffix keeps two comments of the same millisecond apart. `now` and `random` are parameters so
 * that this is a pure function.
 */
export function commentEntry(
  author: string,
  text: string,
  now: Date,
  random: string,
): [key: string, value: string] {
  const key = `${COMMENT_PREFIX}${String(now.getTime()).padStart(15, '0')}.${random}`;
  return [key, JSON.stringify({ author, text, created_at: now.toISOString().replace(/\.\d+Z$/, 'Z') })];
}
