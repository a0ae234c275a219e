import type { AgentApi } from '../agents/index.ts';
import type { BeadStore } from '../beads/index.ts';
import { BadRequestError, ConflictError, GcError, NotFoundError } from '../runtime/errors.ts';
import type { FormulaService } from '../formulas/index.ts';
import {
  directSlingDecider,
  launchDecider,
  type DirectSling,
  type LiveWorkflowConflict,
} from '../../machines/sling/slingDecide.ts';
import type { SlingInputBody, SlingResponse } from '../../schemas/sling.ts';
import { slingFormulaVars } from '../../machines/sling/slingVars.ts';
import { defaultSlingFormula, resolveSlingTarget } from './slingTarget.ts';

/** What a sling works with: the city's bead store, formulas and agents service. */
export interface SlingContext {
  city: string;
  store: BeadStore;
  /** The city's formulas (only a launch needs them). @throws UnavailableError without the service. */
  formulas: () => FormulaService;
  /** The city's agents service (`LiveCity.services.agents`): targets are its agents and pools. */
  agents: AgentApi | undefined;
  actor?: string;
  /**
   * The default branch of a rig's repository (of the city's without a rig): `base_branch` /
   * `target_branch` of the formulas that take one. Empty when unknown (the variable is not added).
   */
  defaultBranch?: (rig: string | undefined) => Promise<string>;
}

const invalid = (field: string, message: string, value?: unknown): BadRequestError =>
  new BadRequestError(message, 'invalid', {
    errors: [{ location: `body.${field}`, message, ...(value === undefined ? {} : { value }) }],
  });

/** Upstream's problem type of a bead a sling names that the store lacks. */
export const SLING_MISSING_BEAD = 'urn:gascity:error:sling-missing-bead';

/** `err` as upstream's typed problem when it is the store's "bead <id> not found" for `field`; else `err`. */
function typedMissingBead(err: unknown, id: string, field: 'bead' | 'attached_bead_id'): unknown {
  if (!(err instanceof NotFoundError) || err.message !== `bead ${id} not found`) return err;
  return new NotFoundError(err.message, {
    type: SLING_MISSING_BEAD,
    errors: [{ location: `body.${field}`, message: err.message, value: id }],
  });
}

/**
 * Upstream's checks of a sling body, in upstream's order: a bead or a formula, not both; a bead or an
 * attachment, not both; an attachment only with a formula; vars, title and scope only with a formula;
 * scope_kind and scope_ref together, kind city or rig. The city scope must name this city; rigs are not
 * served (404). @throws BadRequestError (400 `invalid:` naming the field), NotFoundError.
 */
export function checkSlingBody(city: string, b: SlingInputBody, targetDefault?: string): void {
  if (b.bead === undefined && b.formula === undefined) throw invalid('bead', 'bead or formula is required');
  if (b.bead !== undefined && b.formula !== undefined)
    throw invalid('formula', 'bead and formula are mutually exclusive', b.formula);
  if (b.bead !== undefined && b.attached_bead_id !== undefined)
    throw invalid('attached_bead_id', 'bead and attached_bead_id are mutually exclusive', b.attached_bead_id);
  if (b.attached_bead_id !== undefined && b.formula === undefined)
    throw invalid('attached_bead_id', 'attached_bead_id requires formula', b.attached_bead_id);
  // A bead slung to a target with a default formula takes the launch options for that formula.
  if (b.formula === undefined && !(b.bead !== undefined && targetDefault)) {
    for (const field of ['vars', 'title', 'scope_kind', 'scope_ref'] as const)
      if (b[field] !== undefined) throw invalid(field, `${field} requires formula`, b[field]);
  }
  if ((b.scope_kind === undefined) !== (b.scope_ref === undefined))
    throw invalid(
      b.scope_kind === undefined ? 'scope_kind' : 'scope_ref',
      'scope_kind and scope_ref must be given together',
    );
  if (b.scope_kind !== undefined && b.scope_kind !== 'city' && b.scope_kind !== 'rig')
    throw invalid('scope_kind', 'scope_kind must be city or rig', b.scope_kind);
  if (b.scope_kind === 'rig') throw new NotFoundError(`rig ${b.scope_ref} not found`);
  if (b.scope_kind === 'city' && b.scope_ref !== city)
    throw new NotFoundError(`scope city:${b.scope_ref} not found`);
}

/**
 * `POST /sling`: routes an existing bead to an agent or pool (`direct`: `gc.routed_to`, plus a
 * `sling-<bead>` auto-convoy), or cooks a formula and routes the workflow to it (`standalone`, or
 * `attached` to a bead: `gc.source_bead_id` on the root, `workflow_id` on the bead). Each is one decision
 * appended as one batch: everything lands or nothing. Answers the HTTP status (200 direct, 201 launch)
 * and upstream's SlingResponse.
 * @throws BadRequestError (400) for a body upstream refuses; NotFoundError for an unknown target, bead
 *   or formula; ValidationError (422) for a formula that does not compile (missing variable, cycle);
 *   ConflictError (409) for a closed bead or a source bead with a live workflow (without `force`).
 */
export async function sling(
  ctx: SlingContext,
  body: SlingInputBody,
): Promise<{ status: 200 | 201; body: SlingResponse }> {
  const rigContext = body.scope_kind === 'rig' ? body.scope_ref : body.scope_kind ? undefined : body.rig;
  const targetDefault = defaultSlingFormula(ctx.agents, body.target, rigContext);
  checkSlingBody(ctx.city, body, targetDefault);
  const target = await resolveSlingTarget(ctx.agents, body.target, rigContext);
  if (target === undefined) throw new NotFoundError(`target ${body.target} not found`);
  const actor = ctx.actor ?? 'api';

  if (body.bead !== undefined && targetDefault && ctx.store.model.beads.has(body.bead)) {
    // Upstream's default-formula sling: the formula is attached to the bead as an attached launch
    // does; the answer is `direct` (200) unless launch options were given, then `attached` (201).
    const options = body.vars !== undefined || !!body.title || body.scope_kind !== undefined;
    const launched = await launch(
      ctx,
      { ...body, formula: targetDefault, attached_bead_id: body.bead },
      target,
      rigContext,
    );
    if (!options) return { status: 200, body: { status: 'slung', target, mode: 'direct', bead: body.bead } };
    return { status: 201, body: { ...launched, bead: body.bead } };
  }

  if (body.bead !== undefined) {
    const id = body.bead;
    if (body.force && !ctx.store.model.beads.has(id)) {
      const warning = `bead ${id} not found in store city:${ctx.city}; nothing was routed`;
      return {
        status: 200,
        body: { status: 'slung', target, mode: 'direct', bead: id, warnings: [warning] },
      };
    }
    let done: DirectSling;
    try {
      done = await ctx.store.decide(directSlingDecider(id, target), { actor });
    } catch (err) {
      throw typedMissingBead(err, id, 'bead');
    }
    const answer: SlingResponse = { status: 'slung', target, mode: 'direct', bead: id };
    if (done.unchanged) answer.warnings = [`bead ${id} is already routed to ${target}; nothing changed`];
    return { status: 200, body: answer };
  }

  return { status: 201, body: await launch(ctx, body, target, rigContext) };
}

/**
 * Cooks `body.formula` routed to `target`, standalone or attached to `body.attached_bead_id` (one batch),
 * with upstream's sling variables. Answers the SlingResponse of the launch.
 */
async function launch(
  ctx: SlingContext,
  body: SlingInputBody,
  target: string,
  rigContext: string | undefined,
): Promise<SlingResponse> {
  const actor = ctx.actor ?? 'api';
  const formula = body.formula!;
  const branch = ctx.defaultBranch ? await ctx.defaultBranch(rigContext) : '';
  const vars = slingFormulaVars(formula, body.attached_bead_id, body.vars, branch);
  // In a rig context the rig's formula layers are searched above the city's (upstream `SearchPaths`).
  const from = rigContext ? { rig: rigContext } : {};
  const { recipe } = await ctx.formulas().compile(formula, vars, true, body.title || undefined, from);
  let conflict: LiveWorkflowConflict | undefined;
  const launch = {
    recipe,
    options: { city: ctx.city, target, ...(rigContext ? { rig: rigContext } : {}) },
    force: body.force === true,
    ...(body.attached_bead_id ? { attachTo: body.attached_bead_id } : {}),
  };
  try {
    const { root } = await ctx.store.decide(
      launchDecider(launch, (c) => (conflict = c)),
      { actor },
    );
    const answer: SlingResponse = {
      status: 'slung',
      target,
      mode: body.attached_bead_id ? 'attached' : 'standalone',
      formula,
      workflow_id: root.id,
      root_bead_id: root.id,
    };
    if (body.attached_bead_id) answer.attached_bead_id = body.attached_bead_id;
    return answer;
  } catch (err) {
    if (body.attached_bead_id) {
      const typed = typedMissingBead(err, body.attached_bead_id, 'attached_bead_id');
      if (typed !== err) throw typed;
    }
    if (conflict && err instanceof GcError && err.status === 409)
      throw new ConflictError(err.message, {
        errors: conflict.blocking_workflow_ids.map((w) => ({
          location: 'body.attached_bead_id',
          message: `blocking workflow ${w}; retry with force to launch another`,
          value: w,
        })),
      });
    throw err;
  }
}
