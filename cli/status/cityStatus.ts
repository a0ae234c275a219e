import type { AgentResponse } from '../../schemas/agents.ts';
import type { ConfigResponse } from '../../schemas/config.ts';
import type { SessionResponse } from '../../schemas/sessions.ts';

/** What `gc status` reads, one API answer each. */
export interface StatusInputs {
  city: { name: string; path: string; suspended: boolean };
  config: ConfigResponse;
  agents: AgentResponse[];
  sessions: SessionResponse[];
}

/** Upstream's `gc status --json` object (the fields we can fill; a pool's min/max is not in the API). */
export interface StatusJson {
  city_name: string;
  city_path: string;
  controller: { running: boolean; mode: string };
  suspended: boolean;
  agents: { name: string; qualified_name: string; scope: string; running: boolean; suspended: boolean }[];
  rigs: { name: string; path: string; suspended: boolean }[];
  summary: {
    total_agents: number;
    running_agents: number;
    active_sessions: number;
    suspended_sessions: number;
  };
}

const qualified = (a: { name: string; dir?: string }): string => (a.dir ? `${a.dir}/${a.name}` : a.name);

/**
 * The status object: configured agents (a pool runs when any of its instances does), rigs, and session
 * counts. The controller is the supervisor itself, running since it answered. Pure.
 */
export function statusJson(i: StatusInputs): StatusJson {
  const agents = (i.config.agents ?? []).map((a) => {
    const q = qualified(a);
    const live = i.agents.filter((x) => x.name === q || x.pool === q);
    return {
      name: a.name,
      qualified_name: q,
      scope: a.scope ?? (a.dir ? 'rig' : 'city'),
      running: live.some((x) => x.running),
      suspended: a.suspended || live.some((x) => x.suspended && x.name === q),
    };
  });
  const count = (states: string[]): number => i.sessions.filter((s) => states.includes(s.state)).length;
  return {
    city_name: i.city.name,
    city_path: i.city.path,
    controller: { running: true, mode: 'supervisor' },
    suspended: i.city.suspended,
    agents,
    rigs: (i.config.rigs ?? []).map((r) => ({ name: r.name, path: r.path, suspended: r.suspended })),
    summary: {
      total_agents: i.agents.length,
      running_agents: i.agents.filter((a) => a.running).length,
      active_sessions: count(['active', 'creating', 'awake', 'draining']),
      suspended_sessions: count(['suspended']),
    },
  };
}

/** Rows as Go's tabwriter aligns them (two spaces between columns), each with an indent. Pure. */
function rows(indent: string, table: string[][]): string[] {
  const widths = (table[0] ?? []).map((_, c) => Math.max(...table.map((r) => r[c]!.length)));
  return table.map(
    (r) => indent + r.map((v, c) => (c === r.length - 1 ? v : v.padEnd(widths[c]! + 2))).join(''),
  );
}

/** Upstream's text skeleton: city and path, controller, suspended, agents (pools with instances), rigs, sessions. Pure. */
export function statusText(i: StatusInputs): string {
  const s = statusJson(i);
  const out = [
    `${s.city_name}  ${s.city_path}`,
    'Controller: running (supervisor)',
    `Suspended:  ${s.suspended ? 'yes' : 'no'}`,
    '',
  ];
  out.push('Agents:');
  const table: string[][] = [];
  for (const [k, a] of s.agents.entries()) {
    const pool = i.config.agents?.[k]?.is_pool === true;
    if (pool) {
      table.push([a.qualified_name, 'scaled']);
      for (const x of i.agents.filter((y) => y.pool === a.qualified_name))
        table.push([`  ${x.name}`, x.running ? 'running' : 'stopped']);
      continue;
    }
    table.push([a.qualified_name, a.running ? 'running' : a.suspended ? 'stopped  (suspended)' : 'stopped']);
  }
  if (table.length === 0) out.push('  (none)');
  else out.push(...rows('  ', table));
  out.push(`${s.summary.running_agents}/${s.summary.total_agents} agents running`, '');
  if (s.rigs.length > 0) {
    out.push(
      'Rigs:',
      ...rows(
        '  ',
        s.rigs.map((r) => [r.name, r.path + (r.suspended ? '  (suspended)' : '')]),
      ),
      '',
    );
  }
  out.push(`Sessions: ${s.summary.active_sessions} active, ${s.summary.suspended_sessions} suspended`);
  return out.join('\n');
}
