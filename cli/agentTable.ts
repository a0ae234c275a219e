import type { AgentResponse } from '../schemas/agents.ts';

/**
 * Renders agents as an aligned text table: NAME (what the other `gc agent` commands take), STATE, RUNNING,
 * PROVIDER, POOL, SESSION (its runtime session name). This is a pure function.
 */
export function agentsTable(agents: AgentResponse[]): string[] {
  const rows = [
    ['NAME', 'STATE', 'RUNNING', 'PROVIDER', 'POOL', 'SESSION'],
    ...agents.map((a) => [
      a.name,
      a.state,
      a.running ? 'yes' : 'no',
      a.provider || '-',
      a.pool || '-',
      a.session?.name || '-',
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}
