import WebSocket from 'ws';
import type { Logger } from '../runtime/logger.ts';

export interface InspectorSocketOptions {
  url: string;
  logger: Logger;
  /** Called on every open, the first and each reconnect: the caller sends what the peer must know now. */
  onOpen(): void;
  /** First retry after a drop or a failed connect (default 250 ms), doubling up to `maxDelayMs` (10 s). */
  minDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * The XState inspector's WebSocket, kept up: a failed connect or a drop at any time (before or after the
 * first open) is retried with a bounded exponential back-off, reset by each open. Nothing is queued while
 * it is down: whoever sends learns of each open through `onOpen` and sends the current state then, which
 * is what a reconnected inspector needs (a backlog would replay stale transitions). It says on the
 * supervisor's log when the inspector went away and when it is back (once each, not every retry).
 *
 * Effects: a WebSocket to `url` and a retry timer (unref'd) until `stop()`.
 */
export class InspectorSocket {
  readonly #options: InspectorSocketOptions;
  readonly #min: number;
  readonly #max: number;
  #ws: WebSocket | undefined;
  #delay: number;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  /** Down since an open socket dropped (or the first connect failed): the next open is "back". */
  #down = false;
  #connectedOnce = false;

  constructor(options: InspectorSocketOptions) {
    this.#options = options;
    this.#min = options.minDelayMs ?? 250;
    this.#max = options.maxDelayMs ?? 10_000;
    this.#delay = this.#min;
  }

  get open(): boolean {
    return this.#ws?.readyState === WebSocket.OPEN;
  }

  start(): void {
    if (this.#stopped || this.#ws) return;
    this.#connect();
  }

  /** Sends one message when open; false (dropped) otherwise. */
  send(text: string): boolean {
    if (!this.open) return false;
    this.#ws!.send(text);
    return true;
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#ws?.removeAllListeners();
    this.#ws?.on('error', () => {});
    this.#ws?.terminate();
    this.#ws = undefined;
  }

  #connect(): void {
    const ws = new WebSocket(this.#options.url);
    this.#ws = ws;
    ws.on('open', () => {
      this.#delay = this.#min;
      if (this.#down) this.#options.logger.info({ url: this.#options.url }, 'XState inspector is back');
      this.#down = false;
      this.#connectedOnce = true;
      this.#options.onOpen();
    });
    // Every failure ends in `close`; the error itself says nothing the close does not.
    ws.on('error', () => {});
    ws.on('close', () => {
      if (this.#stopped || this.#ws !== ws) return;
      this.#ws = undefined;
      if (!this.#down) {
        this.#down = true;
        this.#options.logger.warn(
          { url: this.#options.url, retry_ms: this.#delay },
          this.#connectedOnce
            ? 'XState inspector connection dropped; reconnecting'
            : 'XState inspector not reachable; retrying',
        );
      }
      this.#timer = setTimeout(() => this.#connect(), this.#delay);
      this.#timer.unref();
      this.#delay = Math.min(this.#delay * 2, this.#max);
    });
  }
}
