/**
 * oclif's parse errors are written for its own multi-line renderer: `Missing 1 required arg:` followed by a
 * list, `Parsing --after` followed by the reason on the next line, and a closing `See more help with --help`.
 * This CLI prints one line per failure, so each is folded into one line that names what is wrong and which
 * help to read.
 */

const MORE_HELP = 'See more help with --help';

/** What an oclif parse error carries that we use (its classes are not exported; these fields are). */
interface ParseFailure {
  message: string;
  args?: { name?: string }[];
}

/**
 * Whether `err` is one of oclif's argument/flag parse errors: most end with the "more help" line; a few
 * tokenizer errors (`Flag --city expects a value`) are plain one-liners about a flag.
 */
export function isUsageError(err: unknown): err is ParseFailure {
  if (!(err instanceof Error)) return false;
  return err.message.trimEnd().endsWith(MORE_HELP) || /^(Flag --\S+ |Unexpected flag )/.test(err.message);
}

/**
 * The one-line text of a parse error of the command `label` (`gc city create`), e.g.
 * `missing required argument <dir>; see "gc city create --help"`. Pure.
 */
export function usageText(err: ParseFailure, label: string): string {
  const see = `see "${label} --help"`;
  const lines = err.message
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && l !== MORE_HELP);
  const first = lines[0] ?? 'invalid usage';
  if (/^Missing \d+ required args?\b/.test(first) && err.args?.length) {
    const names = err.args.map((a) => `<${a.name ?? '?'}>`);
    return `missing required argument${names.length === 1 ? '' : 's'} ${names.join(' ')}; ${see}`;
  }
  // `Parsing --after` / `Expected an integer …`: the flag, then why.
  const parsing = /^Parsing (--\S+)$/.exec(first);
  if (parsing) return `${[parsing[1], ...lines.slice(1)].join(': ')}; ${see}`;
  // `The following error occurred:` / its reasons.
  const reasons = /^The following errors? occurred:$/.test(first) ? lines.slice(1) : lines;
  return `${reasons.join('; ')}; ${see}`;
}
