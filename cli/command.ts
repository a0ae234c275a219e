import { Command } from '@oclif/core/command';
import { ApiError, TransportError } from './api.ts';
import { CliError, errorText } from './errors.ts';
import { writeLine } from './jsonl.ts';
import { isUsageError, usageText } from './usageError.ts';

/** Exit statuses this CLI uses on purpose. */
export const EXIT = { ok: 0, failure: 1 } as const;

/**
 * The base of every `gc` command. A failure of any kind becomes one line on stderr, `gc <command>: <message>`,
 * and exit status 1 (or the `CliError`'s own status); stdout only ever carries data. oclif's own error
 * rendering (banners, stack traces, `--json` documents) is bypassed: this CLI writes JSON Lines itself.
 */
export abstract class GcCommand extends Command {
  /** `gc events`, `gc city create` …: the prefix of this command's diagnostics. */
  protected get label(): string {
    return `gc ${(this.id ?? '').replaceAll(':', ' ')}`.trim();
  }

  /** Writes one line of data to stdout, waiting for a full pipe to drain. */
  protected async out(line: string): Promise<void> {
    await writeLine(process.stdout, line);
  }

  /** Writes one diagnostic line, prefixed with the command's label, to stderr. */
  protected note(message: string): void {
    process.stderr.write(`${this.label}: ${message}\n`);
  }

  protected override async catch(
    err: Error & { exitCode?: number; oclif?: { exit?: number } },
  ): Promise<void> {
    // `this.exit(n)` throws oclif's ExitError: it is a deliberate status, not a failure to report.
    if (err.message?.startsWith('EEXIT:')) {
      process.exitCode = err.oclif?.exit ?? 0;
      return;
    }
    this.note(isUsageError(err) ? usageText(err, this.label) : failureText(err));
    process.exitCode = err instanceof CliError ? err.exitCode : EXIT.failure;
  }
}

/** The one-line text of a failure: a Problem's detail, a network error's cause, or the message. Pure. */
export function failureText(err: unknown): string {
  if (err instanceof ApiError || err instanceof TransportError || err instanceof CliError) return err.message;
  // Usage errors are folded by usageText (usageError.ts); anything else multi-line: its first line says it.
  return errorText(err).split('\n')[0]!.trim();
}
