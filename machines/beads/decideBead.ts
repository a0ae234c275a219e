import type { BeadCommand, BeadPatch, CommandResults } from './commands.ts';
import { accept, notFound, reject, type Outcome } from './decision.ts';
import { beadEvent, BeadEventType, type EventContext } from './events.ts';
import { formatId } from './ids.ts';
import { IDEMPOTENCY_KEY, REQUEST_HASH_KEY, RIG_KEY, type BeadModel, type StoredBead } from './model.ts';
import { BEAD_STATUSES, compactBead, isInstant, uniqueLabels, type BeadDraft } from './beadShape.ts';
import { parentCycle } from './cycles.ts';

type Cmd<T extends BeadCommand['type']> = Extract<BeadCommand, { type: T }>;
type Out<T extends keyof CommandResults> = Outcome<CommandResults[T]>;

/**
 * Creates a bead with the next id; a keyed create whose key is already recorded answers the bead it
 * created (same body) or is refused (another body). This is a pure function.
 */
export function decideCreate(model: BeadModel, cmd: Cmd<'CreateBead'>, ctx: EventContext): Out<'CreateBead'> {
  const { input, idempotency } = cmd;
  if (idempotency) {
    const record = model.idempotency.get(idempotency.key);
    if (record) {
      return record.hash === idempotency.hash
        ? accept({ bead: record.bead, replayed: true })
        : reject('idempotency_mismatch', 'Idempotency-Key reused with different request body');
    }
  }
  if (input.parent && !model.beads.has(input.parent)) return notFound('parent bead', input.parent);
  if (input.defer_until && !isInstant(input.defer_until)) {
    return reject('invalid', `defer_until is not an RFC 3339 date-time: ${input.defer_until}`);
  }
  const metadata: Record<string, string> = { ...input.metadata };
  if (input.rig) metadata[RIG_KEY] = input.rig;
  if (idempotency) {
    metadata[IDEMPOTENCY_KEY] = idempotency.key;
    metadata[REQUEST_HASH_KEY] = idempotency.hash;
  }
  const draft: BeadDraft = {
    id: formatId(model.prefix, model.nextNumber),
    title: input.title,
    status: 'open',
    issue_type: input.type || 'task',
    created_at: ctx.now,
    updated_at: ctx.now,
    description: input.description,
    assignee: input.assignee,
    priority: input.priority,
    labels: uniqueLabels(input.labels ?? []),
    metadata,
    parent: input.parent,
    defer_until: input.defer_until,
    ephemeral: cmd.ephemeral,
  };
  const bead = compactBead(draft);
  return accept({ bead, replayed: false }, beadEvent(BeadEventType.Created, bead, ctx));
}

/**
 * Applies a patch: labels are added then removed, metadata keys merged, `parent` null or "" clears.
 * An unchanged bead writes nothing. Moving to `closed` writes `bead.closed`. This is a pure function.
 */
export function decideUpdate(model: BeadModel, cmd: Cmd<'UpdateBead'>, ctx: EventContext): Out<'UpdateBead'> {
  const bead = model.beads.get(cmd.id)?.bead;
  if (!bead) return notFound('bead', cmd.id);
  const patched = applyPatch(model, bead, cmd.patch);
  if ('rejection' in patched) return { ok: false, rejection: patched.rejection };
  if (!patched.changed) return accept(bead);
  const next = compactBead({ ...patched.draft, updated_at: ctx.now });
  const type = next.status === 'closed' && bead.status !== 'closed' ? 'bead.closed' : 'bead.updated';
  return accept(next, beadEvent(type, next, ctx));
}

type Patched =
  | { draft: BeadDraft; changed: boolean }
  | { rejection: { kind: 'not_found' | 'conflict' | 'invalid'; message: string } };

function applyPatch(model: BeadModel, bead: StoredBead, patch: BeadPatch): Patched {
  const d: BeadDraft = { ...bead };
  const invalid = (message: string): Patched => ({ rejection: { kind: 'invalid', message } });
  if (patch.title !== undefined) {
    if (patch.title === '') return invalid('title must not be empty');
    d.title = patch.title;
  }
  if (patch.description !== undefined) d.description = patch.description;
  if (patch.status !== undefined) {
    if (!BEAD_STATUSES.has(patch.status)) return invalid(`unknown status ${JSON.stringify(patch.status)}`);
    d.status = patch.status;
  }
  if (patch.type !== undefined) {
    if (patch.type === '') return invalid('type must not be empty');
    d.issue_type = patch.type;
  }
  if (patch.priority !== undefined) d.priority = patch.priority;
  if (patch.assignee !== undefined) d.assignee = patch.assignee;
  if (patch.labels || patch.remove_labels) {
    const removed = new Set(patch.remove_labels ?? []);
    d.labels = uniqueLabels([...(bead.labels ?? []), ...(patch.labels ?? [])]).filter((l) => !removed.has(l));
  }
  if (patch.metadata && Object.keys(patch.metadata).length > 0) {
    d.metadata = { ...bead.metadata, ...patch.metadata };
  }
  if (patch.parent !== undefined) {
    const parent = patch.parent ?? '';
    if (parent !== '') {
      if (!model.beads.has(parent))
        return { rejection: { kind: 'not_found', message: `parent bead ${parent} not found` } };
      if (parentCycle(model, bead.id, parent)) {
        return {
          rejection: {
            kind: 'conflict',
            message: `parent ${parent} would make bead ${bead.id} its own ancestor`,
          },
        };
      }
    }
    d.parent = parent;
  }
  if (patch.defer_until !== undefined) {
    if (patch.defer_until !== null && !isInstant(patch.defer_until)) {
      return invalid(`defer_until is not an RFC 3339 date-time: ${patch.defer_until}`);
    }
    d.defer_until = patch.defer_until ?? undefined;
  }
  const changed = JSON.stringify(compactBead(d)) !== JSON.stringify(compactBead(bead));
  return { draft: d, changed };
}

/** Closes an open bead; closing a closed one is a conflict. This is a pure function. */
export function decideClose(model: BeadModel, cmd: Cmd<'CloseBead'>, ctx: EventContext): Out<'CloseBead'> {
  const bead = model.beads.get(cmd.id)?.bead;
  if (!bead) return notFound('bead', cmd.id);
  if (bead.status === 'closed') return reject('conflict', `bead ${cmd.id} is already closed`);
  const next = compactBead({ ...bead, status: 'closed', updated_at: ctx.now });
  return accept(next, beadEvent(BeadEventType.Closed, next, ctx));
}

/** Reopens a closed bead; reopening one that is not closed is a conflict. This is a pure function. */
export function decideReopen(model: BeadModel, cmd: Cmd<'ReopenBead'>, ctx: EventContext): Out<'ReopenBead'> {
  const bead = model.beads.get(cmd.id)?.bead;
  if (!bead) return notFound('bead', cmd.id);
  if (bead.status !== 'closed') return reject('conflict', `bead ${cmd.id} is not closed`);
  const next = compactBead({ ...bead, status: 'open', updated_at: ctx.now });
  return accept(next, beadEvent(BeadEventType.Updated, next, ctx));
}

/** Deletes a bead; `bead.deleted` carries its last snapshot. This is a pure function. */
export function decideDelete(model: BeadModel, cmd: Cmd<'DeleteBead'>, ctx: EventContext): Out<'DeleteBead'> {
  const bead = model.beads.get(cmd.id)?.bead;
  if (!bead) return notFound('bead', cmd.id);
  return accept(bead, beadEvent(BeadEventType.Deleted, bead, ctx));
}

/**
 * Hooks a bead to an agent or session (sets the assignee); a blank assignee unhooks it (clears the
 * assignee), as upstream. This is a pure function.
 */
export function decideAssign(model: BeadModel, cmd: Cmd<'AssignBead'>, ctx: EventContext): Out<'AssignBead'> {
  const bead = model.beads.get(cmd.id)?.bead;
  if (!bead) return notFound('bead', cmd.id);
  if (bead.status === 'closed') return reject('conflict', `bead ${cmd.id} is closed`);
  const assignee = cmd.assignee.trim();
  if ((bead.assignee ?? '') === assignee) return accept(bead);
  const next = compactBead({ ...bead, assignee, updated_at: ctx.now });
  return accept(next, beadEvent(BeadEventType.Updated, next, ctx));
}

/**
 * A worker claims a bead: it becomes the assignee and the bead goes in_progress. A bead already held
 * by someone else is not taken; the refusal is recorded as `bead.claim_rejected` (upstream ADR-0009).
 * Claiming a bead one already holds changes nothing. This is a pure function.
 */
export function decideClaim(model: BeadModel, cmd: Cmd<'ClaimBead'>, ctx: EventContext): Out<'ClaimBead'> {
  const bead = model.beads.get(cmd.id)?.bead;
  if (!bead) return notFound('bead', cmd.id);
  if (cmd.claimant.trim() === '') return reject('invalid', 'claimant is required');
  if (bead.status === 'closed') return reject('conflict', `bead ${cmd.id} is closed`);
  const holder = bead.assignee;
  if (holder && holder !== cmd.claimant) {
    const notice = {
      type: BeadEventType.ClaimRejected,
      actor: ctx.actor,
      subject: bead.id,
      ts: ctx.now,
      payload: { bead_id: bead.id, existing_claimant: holder, attempted_claimant: cmd.claimant },
    };
    return accept({ claimed: false, holder }, undefined, [notice]);
  }
  if (holder === cmd.claimant && bead.status === 'in_progress') return accept({ claimed: true, bead });
  const next = compactBead({ ...bead, assignee: cmd.claimant, status: 'in_progress', updated_at: ctx.now });
  return accept({ claimed: true, bead: next }, beadEvent(BeadEventType.Updated, next, ctx));
}
