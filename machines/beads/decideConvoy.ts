import type { BeadCommand, CommandResults } from './commands.ts';
import { accept, notFound, reject, type Outcome, type Rejection } from './decision.ts';
import { beadEvent, BeadEventType, convoyEvent, ConvoyEventType, type EventContext } from './events.ts';
import { formatId } from './ids.ts';
import { RIG_KEY, type BeadModel } from './model.ts';
import { compactBead } from './beadShape.ts';
import { CONVOY_TYPE } from './convoyView.ts';

type Cmd<T extends BeadCommand['type']> = Extract<BeadCommand, { type: T }>;
type Out<T extends keyof CommandResults> = Outcome<CommandResults[T]>;

/**
 * A convoy is a bead of type `convoy`; its members are the beads whose `parent` is the convoy. Changing
 * membership touches several beads, so the actor runs it as steps (one event each, each atomic):
 * validate everything first with {@link checkConvoyItems}, then one `SetConvoyMember` per item. A crash
 * between steps leaves a smaller convoy, never a broken bead.
 */

/**
 * Why `items` cannot be added to (or removed from) convoy `convoyId`, or undefined when they all can.
 * Pass `convoyId` undefined for a convoy about to be created. This is a pure function.
 */
export function checkConvoyItems(
  model: BeadModel,
  convoyId: string | undefined,
  items: readonly string[],
  mode: 'add' | 'remove',
): Rejection | undefined {
  if (convoyId !== undefined) {
    const convoy = model.beads.get(convoyId)?.bead;
    if (!convoy) return { kind: 'not_found', message: `convoy ${convoyId} not found` };
    if (convoy.issue_type !== CONVOY_TYPE)
      return { kind: 'invalid', message: `bead ${convoyId} is not a convoy` };
  }
  for (const item of items) {
    const bead = model.beads.get(item)?.bead;
    if (!bead) return { kind: 'not_found', message: `bead ${item} not found` };
    if (item === convoyId) return { kind: 'invalid', message: `convoy ${item} cannot contain itself` };
    if (mode === 'remove' && bead.parent !== convoyId) {
      return { kind: 'invalid', message: `bead ${item} is not in convoy ${convoyId}` };
    }
  }
  return undefined;
}

/** Creates the convoy bead once every item exists. This is a pure function. */
export function decideCreateConvoy(
  model: BeadModel,
  cmd: Cmd<'CreateConvoy'>,
  ctx: EventContext,
): Out<'CreateConvoy'> {
  const problem = checkConvoyItems(model, undefined, cmd.items, 'add');
  if (problem) return { ok: false, rejection: problem };
  const bead = compactBead({
    id: formatId(model.prefix, model.nextNumber),
    title: cmd.title,
    status: 'open',
    issue_type: CONVOY_TYPE,
    created_at: ctx.now,
    updated_at: ctx.now,
    metadata: cmd.rig ? { [RIG_KEY]: cmd.rig } : undefined,
  });
  return accept(bead, beadEvent(BeadEventType.Created, bead, ctx));
}

/**
 * One membership step: makes `id` a member of the convoy (sets its parent) or not (clears it).
 * A step whose bead or convoy went away since validation, or that is already done, writes nothing and
 * answers false. This is a pure function.
 */
export function decideSetMember(
  model: BeadModel,
  cmd: Cmd<'SetConvoyMember'>,
  ctx: EventContext,
): Out<'SetConvoyMember'> {
  const bead = model.beads.get(cmd.id)?.bead;
  if (!bead || !model.beads.has(cmd.convoyId)) return accept(false);
  const isMember = bead.parent === cmd.convoyId;
  if (isMember === cmd.member) return accept(false);
  const next = compactBead({ ...bead, parent: cmd.member ? cmd.convoyId : undefined, updated_at: ctx.now });
  return accept(true, beadEvent(BeadEventType.Updated, next, ctx));
}

/**
 * The `convoy.created` notice, written after the convoy and its members; its `message` is the convoy's
 * name, as upstream's `gc convoy create` records it. This is a pure function.
 */
export function decideAnnounce(
  model: BeadModel,
  cmd: Cmd<'AnnounceConvoy'>,
  ctx: EventContext,
): Out<'AnnounceConvoy'> {
  const title = model.beads.get(cmd.convoyId)?.bead.title;
  return accept(cmd.convoyId, undefined, [convoyEvent(ConvoyEventType.Created, cmd.convoyId, ctx, title)]);
}

function convoyOf(model: BeadModel, id: string) {
  const bead = model.beads.get(id)?.bead;
  if (!bead) return notFound('convoy', id);
  if (bead.issue_type !== CONVOY_TYPE) return reject('invalid', `bead ${id} is not a convoy`);
  return bead;
}

/** Closes a convoy bead; closing a closed convoy changes nothing. This is a pure function. */
export function decideCloseConvoy(
  model: BeadModel,
  cmd: Cmd<'CloseConvoy'>,
  ctx: EventContext,
): Out<'CloseConvoy'> {
  const convoy = convoyOf(model, cmd.id);
  if ('ok' in convoy) return convoy;
  if (convoy.status === 'closed') return accept(convoy);
  const next = compactBead({ ...convoy, status: 'closed', updated_at: ctx.now });
  return accept(next, beadEvent(BeadEventType.Closed, next, ctx), [
    convoyEvent(ConvoyEventType.Closed, cmd.id, ctx),
  ]);
}

/** Deletes a convoy bead; its members keep their beads. This is a pure function. */
export function decideDeleteConvoy(
  model: BeadModel,
  cmd: Cmd<'DeleteConvoy'>,
  ctx: EventContext,
): Out<'DeleteConvoy'> {
  const convoy = convoyOf(model, cmd.id);
  if ('ok' in convoy) return convoy;
  return accept(convoy, beadEvent(BeadEventType.Deleted, convoy, ctx));
}
