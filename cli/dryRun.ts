import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse } from 'smol-toml';
import type { ApiClient } from './api.ts';
import type { CityInfo } from '../schemas/cities.ts';
import type { ConfigResponse } from '../schemas/config.ts';

/** An agent as the preview shows it. */
interface PreviewAgent {
  name: string;
  suspended: boolean;
}

const tomlAt = (file: string): Record<string, unknown> | undefined => {
  try {
    return parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
};

const agentsOf = (doc: Record<string, unknown> | undefined): PreviewAgent[] =>
  (Array.isArray(doc?.agent) ? (doc.agent as unknown[]) : []).flatMap((raw) => {
    const a = (raw ?? {}) as { name?: unknown; dir?: unknown; suspended?: unknown };
    if (typeof a.name !== 'string' || a.name === '') return [];
    const name = typeof a.dir === 'string' && a.dir !== '' ? `${a.dir}/${a.name}` : a.name;
    return [{ name, suspended: a.suspended === true }];
  });

/**
 * The agents of a city that is not running, read from its directory: city.toml's `[[agent]]` tables, then
 * (when the city has a pack.toml) the pack's and the `agents/` convention directories not named yet.
 * Packs it imports are not expanded. Effects: reads files.
 */
function localAgents(dir: string): { name: string; agents: PreviewAgent[] } {
  const city = tomlAt(join(dir, 'city.toml'));
  const ws = (city?.workspace ?? {}) as { name?: unknown };
  const agents = agentsOf(city);
  const pack = tomlAt(join(dir, 'pack.toml'));
  if (pack) {
    const seen = new Set(agents.map((a) => a.name));
    const add = (a: PreviewAgent): void => {
      if (seen.has(a.name)) return;
      seen.add(a.name);
      agents.push(a);
    };
    agentsOf(pack).forEach(add);
    try {
      for (const e of readdirSync(join(dir, 'agents'), { withFileTypes: true }))
        if (e.isDirectory()) add({ name: e.name, suspended: false });
    } catch {
      // No agents/ directory.
    }
  }
  return { name: typeof ws.name === 'string' && ws.name !== '' ? ws.name : basename(dir), agents };
}

/**
 * `gc start --dry-run`: the preview lines (upstream's skeleton: a count line, one line per agent that would
 * start, the suspended ones counted, "No side effects executed (--dry-run)."). A running city's agents come
 * from its effective config (GET /v0/city/{name}/config); otherwise from its directory.
 * Effects: an HTTP request or file reads; starts nothing.
 */
export async function dryRunAgents(
  client: ApiClient,
  dir: string,
  city: CityInfo | undefined,
): Promise<string[]> {
  let name: string;
  let agents: PreviewAgent[];
  if (city?.running) {
    const { body } = await client.getJson<ConfigResponse>(`/v0/city/${encodeURIComponent(city.name)}/config`);
    name = city.name;
    agents = (body.agents ?? []).map((a) => ({
      name: a.dir ? `${a.dir}/${a.name}` : a.name,
      suspended: a.suspended,
    }));
  } else {
    ({ name, agents } = localAgents(dir));
    if (city) name = city.name;
  }
  const starting = agents.filter((a) => !a.suspended);
  const suspended = agents.length - starting.length;
  return [
    `Dry-run: ${starting.length} agent(s) would start in city ${JSON.stringify(name)}`,
    '',
    ...(starting.length === 0 ? ['  (no agents to start)'] : starting.map((a) => `  ${a.name}`)),
    '',
    ...(suspended > 0 ? [`  ${suspended} agent(s) suspended (not shown above)`] : []),
    'No side effects executed (--dry-run).',
  ];
}
