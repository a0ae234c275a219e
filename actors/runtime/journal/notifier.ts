/**
 * Wakes in-process waiters when a log grows, so subscribers never poll. `wait()` resolves on the next
 * `notify()` (or `close()`); each waiter is released exactly once, so nothing accumulates per append.
 */
export class Notifier {
  #waiters: Array<() => void> = [];
  #closed = false;

  get closed(): boolean {
    return this.#closed;
  }

  wait(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  notify(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  close(): void {
    this.#closed = true;
    this.notify();
  }

  /** How many are waiting now (tests use it to prove a closed subscriber left nothing behind). */
  get waiting(): number {
    return this.#waiters.length;
  }
}
