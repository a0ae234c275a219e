import type { EventDraft } from '../../schemas/event.ts';
import {
  compactBead,
  CONVOY_TYPE,
  accept,
  acceptAll,
  reject,
  type Outcome,
  beadEvent,
  BeadEventType,
  convoyEvent,
  ConvoyEventType,
  type EventContext,
  formatId,
} from '../beads/index.ts';
import type { BeadModel, StoredBead } from '../beads/index.ts';
import { cookDecider, WorkflowKey, type CookOptions, type CookResult } from '../formulas/index.ts';
import type { Recipe } from '../formulas/index.ts';

/** Metadata a sling writes (upstream's keys). */
export const SlingKey = {
  /** On a workflow root launched onto a bead: that bead. */
  SourceBead: 'gc.source_bead_id',
  /** On the source bead: its current workflow's root. */
  Workflow: 'workflow_id',
} as const;

/** The title of a bead's auto-convoy (upstream's). */
export const autoConvoyTitle = (beadId: string): string => `sling-${beadId}`;

/** What a direct sling did. */
export interface DirectSling {
  bead: StoredBead;
  /** The auto-convoy created for it (absent when the bead already had a parent, or nothing changed). */
  convoy?: StoredBead;
  /** Already routed to this target: nothing was written. */
  unchanged: boolean;
}

/**
 * Routes bead `beadId` to `target` (upstream's default sling query: `gc.routed_to=<target>`) and, when it
 * has no parent yet, makes it the one member of a new convoy `sling-<beadId>` (`convoy.created`). One
 * decision, one batch. Already routed there: nothing is written. A missing bead is a not_found refusal; a
 * closed one a conflict. This is a pure function.
 */
export function directSlingDecider(beadId: string, target: string) {
  return (model: Readonly<BeadModel>, ctx: EventContext): Outcome<DirectSling> => {
    const bead = model.beads.get(beadId)?.bead;
    if (!bead) return reject('not_found', `bead ${beadId} not found`);
    if (bead.status === 'closed') return reject('conflict', `bead ${beadId} is closed`);
    if (bead.metadata?.[WorkflowKey.RoutedTo] === target) return accept({ bead, unchanged: true });
    let convoy: StoredBead | undefined;
    const events: EventDraft[] = [];
    const notices: EventDraft[] = [];
    if (bead.parent === undefined) {
      convoy = compactBead({
        id: formatId(model.prefix, model.nextNumber),
        title: autoConvoyTitle(beadId),
        status: 'open',
        issue_type: CONVOY_TYPE,
        created_at: ctx.now,
        updated_at: ctx.now,
      });
      events.push(beadEvent(BeadEventType.Created, convoy, ctx));
      notices.push(convoyEvent(ConvoyEventType.Created, convoy.id, ctx, convoy.title));
    }
    const routed = compactBead({
      ...bead,
      updated_at: ctx.now,
      parent: convoy?.id ?? bead.parent,
      metadata: { ...bead.metadata, [WorkflowKey.RoutedTo]: target },
    });
    events.push(beadEvent(BeadEventType.Updated, routed, ctx));
    return acceptAll({ bead: routed, ...(convoy ? { convoy } : {}), unchanged: false }, events, notices);
  };
}

/** The live workflows a bead is the source of: its `workflow_id` root, while that root is open. Pure. */
export function liveWorkflows(model: Readonly<BeadModel>, bead: StoredBead): string[] {
  const id = bead.metadata?.[SlingKey.Workflow];
  const root = id === undefined ? undefined : model.beads.get(id)?.bead;
  return root && root.status !== 'closed' ? [root.id] : [];
}

/** A formula launch: standalone, or attached to `attachTo`. */
export interface LaunchRequest {
  recipe: Recipe;
  options: CookOptions;
  attachTo?: string;
  /** Replace a live workflow of the source bead instead of refusing. */
  force: boolean;
}

/** A launch refused because the source bead already runs a workflow (upstream's 409 body fields). */
export interface LiveWorkflowConflict {
  source_bead_id: string;
  blocking_workflow_ids: string[];
}

/**
 * Cooks the recipe as a workflow routed to its target, in one decision and one batch: the molecule, its
 * root moved to `in_progress` (the launch is under way), and for an attached launch `gc.source_bead_id` on
 * the root and `workflow_id` on the source bead. The source bead must exist and be open; one that already
 * runs a live workflow is a conflict unless `force`. `onConflict` receives the blocking workflows.
 * This is a pure function.
 */
export function launchDecider(req: LaunchRequest, onConflict: (c: LiveWorkflowConflict) => void) {
  return (model: Readonly<BeadModel>, ctx: EventContext): Outcome<CookResult> => {
    const source = req.attachTo === undefined ? undefined : model.beads.get(req.attachTo)?.bead;
    if (req.attachTo !== undefined) {
      if (!source) return reject('not_found', `bead ${req.attachTo} not found`);
      if (source.status === 'closed') return reject('conflict', `bead ${req.attachTo} is closed`);
      const live = liveWorkflows(model, source);
      if (live.length > 0 && !req.force) {
        onConflict({ source_bead_id: source.id, blocking_workflow_ids: live });
        return reject(
          'conflict',
          `bead ${source.id} already has a live workflow ${live.join(', ')}; pass force to launch another`,
        );
      }
    }
    const options: CookOptions = source
      ? { ...req.options, rootMetadata: { ...req.options.rootMetadata, [SlingKey.SourceBead]: source.id } }
      : req.options;
    return cookDecider(req.recipe, options, (root, _next, c) => {
      const events: EventDraft[] = [
        beadEvent(BeadEventType.Updated, compactBead({ ...root, status: 'in_progress' }), c),
      ];
      if (source) {
        const attached = compactBead({
          ...source,
          updated_at: c.now,
          metadata: { ...source.metadata, [SlingKey.Workflow]: root.id },
        });
        events.push(beadEvent(BeadEventType.Updated, attached, c));
      }
      return { events, notices: [] };
    })(model, ctx);
  };
}
