import type { EventDraft } from '../../schemas/event.ts';
import {
  compactBead,
  uniqueLabels,
  acceptAll,
  type Outcome,
  beadEvent,
  BeadEventType,
  type EventContext,
  formatId,
  ROOT_KEY,
  type BeadModel,
  type StoredBead,
} from '../beads/index.ts';
import type { Recipe } from './compile.ts';

/** Metadata keys of a workflow root and its steps (upstream's). */
export const WorkflowKey = {
  Kind: 'gc.kind',
  FormulaName: 'gc.formula_name',
  Contract: 'gc.formula_contract',
  StepRef: 'gc.step_ref',
  RunTarget: 'gc.run_target',
  RoutedTo: 'gc.routed_to',
  ScopeKind: 'gc.scope_kind',
  ScopeRef: 'gc.scope_ref',
  Outcome: 'gc.outcome',
} as const;

/** What a cook adds to the root beyond the recipe (a target, an order's labels, …). */
export interface CookOptions {
  /** The agent or pool the workflow is routed to (`gc.routed_to`, `gc.run_target`). */
  target?: string;
  /** The city: the workflow's scope (`gc.scope_ref`) unless `rig` is given. */
  city: string;
  /** The rig the workflow was launched in (a rig sling, a rig's order): its scope is that rig. */
  rig?: string;
  rootLabels?: string[];
  rootMetadata?: Record<string, string>;
}

/** The beads a cook created, root first. */
export interface CookResult {
  root: StoredBead;
  beads: StoredBead[];
}

/**
 * Creates a recipe's whole bead graph: the workflow root (metadata `gc.kind=workflow`) then every step as
 * a child of it (`parent`, `gc.root_bead_id`, `gc.step_ref`, `ref`), its `needs` as `blocks` dependencies.
 * Ids are the model's next ones in order. One decision of `bead.created` events, appended as one batch by
 * the bead store's runner: the molecule exists whole or not at all. `extra` events (an order's tracking
 * bead and notices) join the same batch. This is a pure function.
 */
export function cookDecider(recipe: Recipe, options: CookOptions, extra: ExtraEvents = () => noExtra) {
  return (model: Readonly<BeadModel>, ctx: EventContext): Outcome<CookResult> => {
    let next = model.nextNumber;
    const rootId = formatId(model.prefix, next++);
    const idOf = new Map<string, string>();
    for (const s of recipe.steps) idOf.set(s.key, formatId(model.prefix, next++));
    const rootMeta: Record<string, string> = {
      [WorkflowKey.Kind]: 'workflow',
      [WorkflowKey.FormulaName]: recipe.formula,
      [WorkflowKey.ScopeKind]: options.rig === undefined ? 'city' : 'rig',
      [WorkflowKey.ScopeRef]: options.rig ?? options.city,
      ...(recipe.version >= 2 ? { [WorkflowKey.Contract]: 'graph.v2' } : {}),
      ...(options.target
        ? { [WorkflowKey.RunTarget]: options.target, [WorkflowKey.RoutedTo]: options.target }
        : {}),
      ...options.rootMetadata,
    };
    const root = compactBead({
      id: rootId,
      title: recipe.root.title,
      status: 'open',
      issue_type: recipe.root.type,
      created_at: ctx.now,
      updated_at: ctx.now,
      description: recipe.root.description,
      labels: uniqueLabels(options.rootLabels ?? []),
      metadata: rootMeta,
      ref: recipe.formula,
    });
    const beads = [root];
    for (const s of recipe.steps) {
      const id = idOf.get(s.key)!;
      beads.push(
        compactBead({
          id,
          title: s.title,
          status: 'open',
          issue_type: s.type,
          created_at: ctx.now,
          updated_at: ctx.now,
          description: s.description,
          assignee: s.assignee,
          priority: s.priority,
          labels: uniqueLabels(s.labels),
          metadata: { ...s.metadata, [WorkflowKey.StepRef]: s.key, [ROOT_KEY]: rootId },
          parent: rootId,
          dependencies: s.needs.map((n) => ({ issue_id: id, depends_on_id: idOf.get(n)!, type: 'blocks' })),
          ref: s.key,
        }),
      );
    }
    const events = beads.map((b) => beadEvent(BeadEventType.Created, b, ctx));
    const more = extra(root, next, ctx);
    return acceptAll({ root, beads }, [...events, ...more.events], more.notices);
  };
}

/** Events an order adds to a cook's batch, given the root and the next free id number. */
export type ExtraEvents = (
  root: StoredBead,
  nextNumber: number,
  ctx: EventContext,
) => { events: EventDraft[]; notices: EventDraft[] };

const noExtra = { events: [], notices: [] };
