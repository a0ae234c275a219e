/**
 * The sessions of one city as records over its bead store: lookups (by id, runtime session name or alias,
 * as upstream resolves a target) and the one way to change them, a pure session decider run through the
 * bead store's runner (so each change is one atomic batch on the city log).
 */
import type { BeadStore } from '../beads/index.ts';
import type { Outcome } from '../../machines/beads/decision.ts';
import type { EventContext } from '../../machines/beads/events.ts';
import type { BeadModel, StoredBead } from '../../machines/beads/model.ts';
import {
  isSessionBead,
  SESSION_BEAD_TYPE,
  sessionOf,
  type SessionRecord,
} from '../../machines/sessions/sessionRecord.ts';
import { NotFoundError } from '../runtime/errors.ts';

export class SessionBook {
  constructor(
    readonly store: BeadStore,
    /** The API view of a session bead, for `request.result.session.create`. */
    readonly snapshotOf: (bead: StoredBead) => Record<string, unknown>,
    private readonly actor = 'gc',
  ) {}

  /** Open sessions, oldest first. */
  openSessions(): SessionRecord[] {
    return this.#ids(false).map((id) => sessionOf(this.store.model.beads.get(id)!.bead));
  }

  /** Every session (open and closed), oldest first. */
  allSessions(): SessionRecord[] {
    const ids = [...this.#ids(false), ...this.#ids(true)];
    const model = this.store.model;
    ids.sort((a, b) => model.beads.get(a)!.ordinal - model.beads.get(b)!.ordinal);
    return ids.map((id) => sessionOf(model.beads.get(id)!.bead));
  }

  #ids(closed: boolean): string[] {
    const index = this.store.model.indexes.byType[closed ? 'closed' : 'open'].get(SESSION_BEAD_TYPE);
    if (!index) return [];
    const model = this.store.model;
    return [...index]
      .filter((id) => model.beads.has(id))
      .sort((a, b) => model.beads.get(a)!.ordinal - model.beads.get(b)!.ordinal);
  }

  find(id: string): SessionRecord | undefined {
    const bead = this.store.model.beads.get(id)?.bead;
    return bead && isSessionBead(bead) ? sessionOf(bead) : undefined;
  }

  /**
   * The session `target` names: a bead id, else an open session's runtime name, else an open alias.
   * @throws NotFoundError (404 `not_found:`).
   */
  resolve(target: string): SessionRecord {
    const byId = this.find(target);
    if (byId) return byId;
    const open = this.openSessions();
    const found = open.find((s) => s.sessionName === target) ?? open.find((s) => s.alias === target);
    if (!found) throw new NotFoundError(`session ${JSON.stringify(target)} not found`);
    return found;
  }

  /** Runs a session decider: its bead event and notices land as one batch, or a refusal throws. */
  decide<R>(
    decider: (model: Readonly<BeadModel>, ctx: EventContext) => Outcome<R>,
    actor = this.actor,
  ): Promise<R> {
    return this.store.decide(decider, { actor });
  }
}
