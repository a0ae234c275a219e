/**
 * A failure the CLI reports as one human-readable line on stderr (`gc <command>: <message>`) with a
 * deliberate exit status. Nothing is written to stdout for it.
 */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, options: ErrorOptions & { exitCode?: number } = {}) {
    super(message, options);
    this.name = 'CliError';
    this.exitCode = options.exitCode ?? 1;
  }
}

/** The text of any thrown value, for a one-line diagnostic. Pure. */
export function errorText(err: unknown): string {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? err.cause : undefined;
    // fetch() says only "fetch failed"; the useful part (ECONNREFUSED …) is in its cause.
    if (err.message === 'fetch failed' && cause) return `${errorCode(cause) ?? cause.message}`;
    return err.message;
  }
  return String(err);
}

function errorCode(err: Error): string | undefined {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') return undefined;
  return err.message.includes(code) ? err.message : `${code}: ${err.message}`;
}
