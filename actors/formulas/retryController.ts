import type { BeadStore } from '../beads/index.ts';
import { isBlocked } from '../../machines/beads/index.ts';
import {
  isRetryControl,
  retryControlDecider,
  type RetryAction,
} from '../../machines/formulas/retryControl.ts';

/** Who the controller's events name as their actor: upstream's implicit control-dispatcher agent. */
export const CONTROL_DISPATCHER = 'control-dispatcher';

/** Options of {@link RetryController}. */
export interface RetryControllerOptions {
  /** Told when a decision fails (default: nothing; the next change of the store tries again). */
  onError?: (err: unknown, controlId: string) => void;
  /** Told of every control processed, with what it did (tests, traces). */
  onAction?: (controlId: string, action: RetryAction) => void;
  /** Longest wait between two sweeps with nothing appended (default 30 s). */
  idleMs?: number;
}

/**
 * The run-time half of formula `retry` (upstream's control dispatcher for `gc.kind=retry` beads): follows
 * a city's bead store, and whenever a retry control's latest attempt has closed, decides it with
 * {@link retryControlDecider} (pass, retry with a new attempt, or fail as the budget and `on_exhausted`
 * say), one fenced batch per control. It tracks the open controls incrementally (beads created since the
 * last sweep), so a sweep costs the controls, not the city. Effects: appends to the store; a timer.
 */
export class RetryController {
  readonly #controls = new Set<string>();
  readonly #abort = new AbortController();
  #seen = -1;
  #running: Promise<void> | undefined;

  constructor(
    private readonly store: BeadStore,
    private readonly options: RetryControllerOptions = {},
  ) {}

  /** Starts following the store (idempotent). */
  start(): void {
    this.#running ??= this.#loop();
  }

  /** Stops following and waits for a sweep under way. */
  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#running;
  }

  /** One pass over the open controls now (the loop's step; tests call it to wait for a decision). */
  async sweep(): Promise<void> {
    this.#collect();
    const model = this.store.model;
    for (const id of [...this.#controls]) {
      const bead = model.beads.get(id)?.bead;
      if (!bead || !isRetryControl(bead)) {
        this.#controls.delete(id);
        continue;
      }
      if (isBlocked(model, bead)) continue;
      try {
        const { action } = await this.store.decide(retryControlDecider(id), { actor: CONTROL_DISPATCHER });
        if (action !== 'pending' && action !== 'noop') this.options.onAction?.(id, action);
      } catch (err) {
        this.options.onError?.(err, id);
      }
    }
  }

  async #loop(): Promise<void> {
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      const index = this.store.index;
      await this.sweep();
      await this.store.waitForIndex(index, this.options.idleMs ?? 30_000, signal);
    }
  }

  /** Adds the retry controls created since the last look (newest first, down to the last seen). */
  #collect(): void {
    const model = this.store.model;
    let newest = this.#seen;
    for (const [id, ordinal] of model.indexes.order.newestFirst()) {
      if (ordinal <= this.#seen) break;
      if (ordinal > newest) newest = ordinal;
      const bead = model.beads.get(id)?.bead;
      if (bead && isRetryControl(bead)) this.#controls.add(id);
    }
    this.#seen = newest;
  }
}
