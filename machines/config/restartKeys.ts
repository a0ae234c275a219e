/**
 * The parts of city.toml a running city reads only when it starts: an edit of one of them is a
 * /config/validate warning naming the key until the city restarts. Every other part a city reads takes
 * effect on the edit (agents, named sessions, providers, rigs, `[session]` thresholds, `[daemon]
 * shutdown_timeout`, `[maintenance]`, formulas and orders). docs/compatibility.md lists them. Pure.
 */
import type { CityConfig } from '../../schemas/cityToml.ts';
import { CITY_FILE } from './layers.ts';
import type { ConfigProblem } from './problems.ts';

/** What a city reads of its config: the city's view and the composed `[[service]]` tables. */
export interface ReadConfig {
  city: CityConfig;
  services: readonly unknown[];
}

/** Each start-only key: where it is read from a config, and what reads it. */
const START_ONLY: ReadonlyArray<{ field: string; of: (c: ReadConfig) => unknown; reader: string }> = [
  { field: 'session.provider', of: (c) => c.city.session?.provider, reader: "the city's session runtime" },
  { field: 'session.acp', of: (c) => c.city.sessionAcp, reader: "the city's ACP runtime" },
  {
    field: 'daemon.patrol_interval',
    of: (c) => c.city.daemon?.patrol_interval,
    reader: "the orders' tick",
  },
  { field: 'service', of: (c) => c.services, reader: 'the workspace services' },
];

/**
 * One warning per start-only key whose value in `now` is not the one the city started with (`started`).
 */
export function restartProblems(started: ReadConfig, now: ReadConfig): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  for (const { field, of, reader } of START_ONLY) {
    if (JSON.stringify(of(started)) === JSON.stringify(of(now))) continue;
    out.push({
      severity: 'warning',
      file: CITY_FILE,
      field,
      message: `changed since the city started: ${reader} takes it when the city restarts (stop and start it, or restart the supervisor)`,
    });
  }
  return out;
}
