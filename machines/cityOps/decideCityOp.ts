import type { CityState } from '../city.machine.ts';
import type { RequestOperation } from '../request.machine.ts';

/** Which operation holds a city path before its request is durable (what a 409 says is in progress). */
export type CityClaimOperation = 'create' | 'unregister';

/** A path held by an HTTP handler that has not answered yet, and the name of the city it is about. */
export interface CityClaim {
  readonly operation: CityClaimOperation;
  readonly name: string;
}

/**
 * What the supervisor knows when a city operation arrives. The actors gather it (the supervisor's log,
 * the registry, the city actors) and the decider only reads it, so the same view always gets the same answer.
 */
export interface CityOpView {
  /** Paths held by an operation whose HTTP handler has not answered yet. */
  readonly claims: ReadonlyMap<string, CityClaim>;
  /** Requests accepted in the supervisor's log that have no terminal event yet. */
  readonly pending: readonly {
    readonly operation: RequestOperation;
    readonly name: string;
    readonly path: string;
  }[];
  /** The registry's entries (`$GC_HOME/cities.toml`). */
  readonly registry: readonly { readonly name: string; readonly path: string }[];
  /** Every city with an actor (registered ones and ones still being unregistered), by name. */
  readonly cities: ReadonlyMap<string, { readonly path: string; readonly state: CityState }>;
}

/**
 * A city operation asking to proceed.
 * - `create.claim`: `POST /v0/city` before it touches the disk: may it hold `path`?
 * - `create.admit`: the same create, holding its claim, once it has looked at the disk (`initialized`: the
 *   directory already holds a scaffolded city, `.gc/` with its runtime dirs and `.gc/events.jsonl`; a
 *   directory with `.gc/` but no log is not a city yet).
 * - `unregister`: `POST /v0/city/{name}/unregister`.
 * - `stop`: `POST /v0/city/{name}/stop` of a running city at `path`.
 * - `reconcile`: a reconcile pass about to complete a pending request for the city at `path`.
 */
export type CityOpIntent =
  | { readonly op: 'create.claim'; readonly name: string; readonly path: string }
  | {
      readonly op: 'create.admit';
      readonly name: string;
      readonly path: string;
      readonly initialized: boolean;
    }
  | { readonly op: 'unregister'; readonly name: string }
  | { readonly op: 'stop'; readonly name: string; readonly path: string }
  | { readonly op: 'reconcile'; readonly path: string };

/** Why an operation may not proceed: which conflict, its HTTP status, and the message clients see. */
export interface CityOpConflict {
  readonly conflict:
    | 'create_in_progress'
    | 'operation_in_progress'
    | 'already_initialized'
    | 'name_registered'
    | 'not_registered';
  readonly status: 404 | 409;
  readonly message: string;
}

/**
 * The answer. `accept` names the claim to take (at once, in the same step as the decision, so two handlers
 * can never both pass the check), if any; `refuse` says which conflict; `defer` (reconcile only) leaves the
 * request to the handler that holds its path.
 */
export type CityOpDecision =
  | { readonly verdict: 'accept'; readonly claim?: { readonly path: string; readonly claim: CityClaim } }
  | { readonly verdict: 'refuse'; readonly refusal: CityOpConflict }
  | { readonly verdict: 'defer' };

const accept = (claim?: { path: string; claim: CityClaim }): CityOpDecision =>
  claim ? { verdict: 'accept', claim } : { verdict: 'accept' };

const refuse = (conflict: CityOpConflict['conflict'], message: string): CityOpDecision => ({
  verdict: 'refuse',
  refusal: { conflict, status: conflict === 'not_registered' ? 404 : 409, message },
});

const inProgress = (path: string): CityOpDecision =>
  refuse('operation_in_progress', `city operation already in progress at ${path}`);

/**
 * The supervisor's city-operation conflict policy: whether `intent` may proceed given `view`, and the claim
 * it takes if so. Pure: no I/O, no clock; the actors bring the facts and apply the answer.
 */
export function decideCityOp(view: CityOpView, intent: CityOpIntent): CityOpDecision {
  switch (intent.op) {
    case 'create.claim': {
      const { name, path } = intent;
      const held = view.claims.get(path)?.operation;
      const pendingHere = view.pending.filter((r) => r.path === path);
      if (held === 'create' || pendingHere.some((r) => r.operation === 'city.create')) {
        return refuse('create_in_progress', `city initialization already in progress at ${path}`);
      }
      if (held !== undefined || pendingHere.length > 0) return inProgress(path);
      return accept({ path, claim: { operation: 'create', name } });
    }
    case 'create.admit': {
      const { name, path } = intent;
      if (intent.initialized || view.registry.some((e) => e.path === path)) {
        return refuse('already_initialized', `city already initialized at ${path}`);
      }
      const claimedElsewhere = [...view.claims].some(([p, c]) => p !== path && c.name === name);
      if (view.registry.some((e) => e.name === name) || view.cities.has(name) || claimedElsewhere) {
        return refuse(
          'name_registered',
          `a city named ${JSON.stringify(name)} is already registered with supervisor`,
        );
      }
      return accept();
    }
    case 'unregister': {
      const { name } = intent;
      const entry = view.registry.find((e) => e.name === name);
      const city = view.cities.get(name);
      if (!entry || !city) return refuse('not_registered', `city not registered with supervisor: ${name}`);
      const { path } = entry;
      if (
        view.claims.has(path) ||
        view.pending.some((r) => r.path === path || r.name === name) ||
        city.state === 'unregistering' ||
        city.state === 'unregistered'
      ) {
        return inProgress(path);
      }
      return accept({ path, claim: { operation: 'unregister', name } });
    }
    case 'stop': {
      const { name, path } = intent;
      if (view.claims.has(path) || view.pending.some((r) => r.name === name)) return inProgress(path);
      return accept();
    }
    case 'reconcile':
      // Its HTTP handler is still between `request.accepted` and the city's own event: not the reconciler's yet.
      return view.claims.has(intent.path) ? { verdict: 'defer' } : accept();
  }
}
