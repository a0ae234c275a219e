import { countMail } from './mailQueries.ts';
import type { BeadModel } from './model.ts';
import { readyBeads } from './ready.ts';

/** Upstream's StatusWorkCounts (a type, not an interface, so it fits the schema's count records). */
export type WorkCounts = {
  in_progress: number;
  ready: number;
  open: number;
};

/** Upstream's StatusMailCounts. */
export type MailCounts = {
  unread: number;
  total: number;
};

/** Bead types upstream's status counts as infrastructure, not work. */
export const NOT_WORK_TYPES: ReadonlySet<string> = new Set(['message', 'convoy', 'convergence']);

/**
 * The work counts of a city's status, as upstream computes them: `open` and `in_progress` count beads
 * with that status whose type is work, and `ready` is the ready set `GET /beads/ready` serves (so a
 * blocked or deferred bead is open but not ready). This is a pure function.
 */
export function workCounts(model: Readonly<BeadModel>, now: number): WorkCounts {
  const count = (status: string) => {
    let n = 0;
    for (const id of model.indexes.byStatus.get(status) ?? []) {
      const bead = model.beads.get(id)?.bead;
      if (bead && !NOT_WORK_TYPES.has(bead.issue_type)) n++;
    }
    return n;
  };
  return { in_progress: count('in_progress'), ready: readyBeads(model, now).length, open: count('open') };
}

/**
 * The mail counts of a city's status: every mailbox's open (not archived) messages and the unread
 * among them, the counts `GET /mail/count` answers without filters. This is a pure function.
 */
export const mailCounts = (model: Readonly<BeadModel>): MailCounts => countMail(model, {});
