import * as Flags from '@oclif/core/flags';
import { agentFlags, agentTarget, type AgentTarget } from './agentClient.ts';
import { CliError } from './errors.ts';

/**
 * What the per-city commands of the formulas, orders and sling families share: where the API is, which
 * city (as `gc agent` finds them), the city's API paths, `--var key=value`, and aligned text tables.
 */

/** `--api` and `--city`. */
export const cityFlags = agentFlags;

/** The API and the city in scope. Effects: API discovery. @throws CliError without a city in scope. */
export const cityTarget = (flags: { api?: string; city?: string }): Promise<AgentTarget> =>
  agentTarget(flags);

/** `/v0/city/{city}/<segments…>`, each segment percent-encoded. Pure. */
export const cityPath = (city: string, ...segments: string[]): string =>
  `/v0/city/${[city, ...segments].map(encodeURIComponent).join('/')}`;

/** `--var key=value`, repeatable. */
export const varFlag = Flags.string({
  description: 'a formula variable as key=value (repeatable)',
  multiple: true,
});

/** The `--var` values as a map (the last value of a key wins). Pure. @throws CliError for one without `=`. */
export function parseVars(values: readonly string[] | undefined): Record<string, string> | undefined {
  if (!values || values.length === 0) return undefined;
  const vars: Record<string, string> = {};
  for (const v of values) {
    const at = v.indexOf('=');
    if (at <= 0) throw new CliError(`--var ${JSON.stringify(v)}: expected key=value`);
    vars[v.slice(0, at)] = v.slice(at + 1);
  }
  return vars;
}

/** Rows as aligned columns (the first row is the header; an empty cell shows `-`). Pure. */
export function textTable(rows: readonly (readonly string[])[]): string[] {
  const cells = rows.map((r) => r.map((c) => (c === '' ? '-' : c)));
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}
