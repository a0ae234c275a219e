import { TomlError } from 'smol-toml';
import { CITY_FILE } from '../../machines/config/layers.ts';
import type { ConfigProblem } from '../../machines/config/problems.ts';

/** A TOML file that does not parse: a problem naming the file and line. Pure. */
export function tomlProblem(err: unknown, file = CITY_FILE): ConfigProblem {
  const line = err instanceof TomlError ? `line ${err.line}` : 'document';
  const message = ((err as Error).message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
  return { severity: 'error', file, field: line, message: `invalid TOML: ${message}` };
}
