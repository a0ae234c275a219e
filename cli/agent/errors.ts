/** A `gc <command>` failure: one line `gc <command>: <message>` on stderr, exit 1 (or the given code). */
export class GcAgentError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
