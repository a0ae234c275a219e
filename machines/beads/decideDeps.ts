import type { BeadCommand, CommandResults } from './commands.ts';
import { accept, notFound, reject, type Outcome } from './decision.ts';
import { beadEvent, BeadEventType, type EventContext } from './events.ts';
import type { BeadModel } from './model.ts';
import { compactBead, depsOf } from './beadShape.ts';
import { dependencyCycle, ORDERING_DEP_TYPES } from './cycles.ts';

type Cmd<T extends BeadCommand['type']> = Extract<BeadCommand, { type: T }>;
type Out<T extends keyof CommandResults> = Outcome<CommandResults[T]>;

const DEP_TYPE = /^[a-z][a-z0-9-]{0,63}$/;

/**
 * Adds the typed edge `id → dependsOn` to `id`'s dependencies. Both beads must exist; an ordering edge
 * that would close a cycle (a bead waiting on itself, directly or not) is a conflict; an edge already
 * there changes nothing. This is a pure function.
 */
export function decideAddDependency(
  model: BeadModel,
  cmd: Cmd<'AddDependency'>,
  ctx: EventContext,
): Out<'AddDependency'> {
  const bead = model.beads.get(cmd.id)?.bead;
  if (!bead) return notFound('bead', cmd.id);
  if (!model.beads.has(cmd.dependsOn)) return notFound('bead', cmd.dependsOn);
  if (!DEP_TYPE.test(cmd.depType))
    return reject('invalid', `invalid dependency type ${JSON.stringify(cmd.depType)}`);
  const deps = depsOf(bead);
  if (deps.some((d) => d.depends_on_id === cmd.dependsOn && d.type === cmd.depType)) return accept(bead);
  if (
    cmd.dependsOn === cmd.id ||
    (ORDERING_DEP_TYPES.has(cmd.depType) && dependencyCycle(model, cmd.id, cmd.dependsOn))
  ) {
    return reject(
      'conflict',
      `dependency ${cmd.id} -> ${cmd.dependsOn} (${cmd.depType}) would create a cycle`,
    );
  }
  const dependencies = [...deps, { issue_id: cmd.id, depends_on_id: cmd.dependsOn, type: cmd.depType }];
  const next = compactBead({ ...bead, dependencies, updated_at: ctx.now });
  return accept(next, beadEvent(BeadEventType.Updated, next, ctx));
}

/**
 * Removes the edges `id → dependsOn` (of `depType` only, when given). Removing an edge that is not
 * there is not found. This is a pure function.
 */
export function decideRemoveDependency(
  model: BeadModel,
  cmd: Cmd<'RemoveDependency'>,
  ctx: EventContext,
): Out<'RemoveDependency'> {
  const bead = model.beads.get(cmd.id)?.bead;
  if (!bead) return notFound('bead', cmd.id);
  const deps = depsOf(bead);
  const matches = (d: (typeof deps)[number]) =>
    d.depends_on_id === cmd.dependsOn && (cmd.depType === undefined || d.type === cmd.depType);
  if (!deps.some(matches)) return notFound(`dependency ${cmd.id} ->`, cmd.dependsOn);
  const next = compactBead({ ...bead, dependencies: deps.filter((d) => !matches(d)), updated_at: ctx.now });
  return accept(next, beadEvent(BeadEventType.Updated, next, ctx));
}
