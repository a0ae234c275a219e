import type { Bead } from '../../schemas/beads.ts';
import type { ConvoyCheckResponse, ConvoyGetResponse, ConvoyProgress } from '../../schemas/convoys.ts';
import type { BeadModel } from './model.ts';
import { pageOf, type Page } from './paging.ts';
import { childrenOf } from './queries.ts';
import { present } from './ready.ts';

export const CONVOY_TYPE = 'convoy';

/** True when `id` names a convoy bead. This is a pure function. */
export const isConvoy = (model: BeadModel, id: string): boolean =>
  model.beads.get(id)?.bead.issue_type === CONVOY_TYPE;

function progress(children: readonly Bead[]): ConvoyProgress {
  return { total: children.length, closed: children.filter((c) => c.status === 'closed').length };
}

/** A convoy with its members (oldest first) and their progress; undefined when not a convoy. Pure. */
export function convoyDetail(model: BeadModel, id: string): ConvoyGetResponse | undefined {
  const convoy = model.beads.get(id)?.bead;
  if (convoy?.issue_type !== CONVOY_TYPE) return undefined;
  const children = childrenOf(model, id) ?? [];
  return { convoy: present(model, convoy), children, progress: progress(children) };
}

/** Completion of a convoy: complete when it has members and all are closed. Pure. */
export function convoyCheck(model: BeadModel, id: string): ConvoyCheckResponse | undefined {
  const detail = convoyDetail(model, id);
  if (!detail?.progress) return undefined;
  const { total, closed } = detail.progress;
  return { convoy_id: id, total, closed, complete: total > 0 && closed === total };
}

/** One page of the open convoys, newest first. This is a pure function. */
export function listConvoys(model: BeadModel, size: number, before?: number): Page<Bead> {
  return pageOf(model, {
    candidates: model.indexes.byType.open.get(CONVOY_TYPE) ?? new Set(),
    matches: (b) => b.issue_type === CONVOY_TYPE && b.status !== 'closed',
    map: (e) => present(model, e.bead),
    size,
    before,
  });
}
