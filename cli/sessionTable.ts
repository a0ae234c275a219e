import type { SessionResponse } from '../schemas/sessions.ts';

/**
 * Renders sessions as an aligned text table: ID, NAME (the runtime session name), ALIAS, STATE, RUNNING,
 * TEMPLATE, TITLE. Any of the first three addresses the session in the other `gc session` commands. The
 * title, free text, comes last and is not padded. This is a pure function.
 */
export function sessionsTable(sessions: SessionResponse[]): string[] {
  const rows = [
    ['ID', 'NAME', 'ALIAS', 'STATE', 'RUNNING', 'TEMPLATE', 'TITLE'],
    ...sessions.map((s) => [
      s.id,
      s.session_name || '-',
      s.alias || '-',
      s.state,
      s.running ? 'yes' : 'no',
      s.template || '-',
      s.title ?? '',
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
