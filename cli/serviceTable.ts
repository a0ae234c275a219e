import type { ServiceStatus } from '../schemas/workspaceServices.ts';

/**
 * Renders workspace services as an aligned text table: NAME, KIND, STATE (local state), MOUNT, REASON.
 * This is a pure function.
 */
export function servicesTable(services: ServiceStatus[]): string[] {
  const rows = [
    ['NAME', 'KIND', 'STATE', 'MOUNT', 'REASON'],
    ...services.map((s) => [s.service_name, s.kind ?? '-', s.local_state, s.mount_path, s.reason || '-']),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}
