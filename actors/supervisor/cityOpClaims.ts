import {
  decideCityOp,
  type CityClaim,
  type CityOpConflict,
  type CityOpIntent,
  type CityOpView,
} from '../../machines/cityOps/decideCityOp.ts';
import { ConflictError, InternalError, NotFoundError } from '../runtime/errors.ts';

/** The facts besides the claims that the policy reads; read only when a decision needs them. */
export type CityOpFacts = Omit<CityOpView, 'claims'>;

/** The error a refused city operation answers with (404 `not_found:`, 409 `conflict:`). */
export const conflictError = (refusal: CityOpConflict): NotFoundError | ConflictError =>
  refusal.status === 404 ? new NotFoundError(refusal.message) : new ConflictError(refusal.message);

/**
 * The claims city operations hold on city paths while their HTTP handler runs, and the one way to take
 * one: through the conflict policy (`decideCityOp`). No other code reads or writes the claims.
 */
export class CityOpClaims {
  readonly #claims = new Map<string, CityClaim>();

  /** `facts` is read at each decision, so every decision sees the supervisor as it is at that moment. */
  constructor(readonly facts: CityOpFacts) {}

  /** How many paths are held (zero once every handler has answered). */
  get size(): number {
    return this.#claims.size;
  }

  /**
   * Decides an operation that holds a path while its handler runs and, when the policy accepts, takes the
   * claim in the same synchronous step, so two concurrent handlers cannot both pass. Returns the path held;
   * the handler gives it back with `release` when it answers.
   * @throws NotFoundError 404 or ConflictError 409 when the policy refuses.
   */
  claim(intent: Extract<CityOpIntent, { op: 'create.claim' | 'unregister' }>): string {
    const decision = decideCityOp(this.#view(), intent);
    if (decision.verdict === 'refuse') throw conflictError(decision.refusal);
    if (decision.verdict !== 'accept' || !decision.claim) {
      throw new InternalError(`city policy accepted ${intent.op} without a claim`);
    }
    this.#claims.set(decision.claim.path, decision.claim.claim);
    return decision.claim.path;
  }

  /**
   * Decides an operation that takes no claim of its own (a create's second look, once it has seen the
   * disk; a stop).
   * @throws NotFoundError 404 or ConflictError 409 when the policy refuses.
   */
  check(intent: Extract<CityOpIntent, { op: 'create.admit' | 'stop' }>): void {
    const decision = decideCityOp(this.#view(), intent);
    if (decision.verdict === 'refuse') throw conflictError(decision.refusal);
  }

  /** Whether a reconcile pass may complete a pending request for the city at `path` now. */
  mayReconcile(path: string): boolean {
    return decideCityOp(this.#view(), { op: 'reconcile', path }).verdict === 'accept';
  }

  /** Gives up the claim on `path` (its handler has answered). */
  release(path: string): void {
    this.#claims.delete(path);
  }

  #view(): CityOpView {
    const facts = this.facts;
    const claims = this.#claims;
    // Getters, not copies: the policy reads only the facts its intent needs (a reconcile pass asks per request).
    return {
      claims,
      get pending() {
        return facts.pending;
      },
      get registry() {
        return facts.registry;
      },
      get cities() {
        return facts.cities;
      },
    };
  }
}
