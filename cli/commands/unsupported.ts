import { GcCommand } from '../command.ts';
import { CliError } from '../errors.ts';

/** The exit status of a command this supervisor does not have (as bd's unsupported commands). */
export const EXIT_UNSUPPORTED = 2;

/**
 * A `gc` command upstream has and this supervisor deliberately does not: any arguments and flags are
 * accepted unread, and it exits 2 with one line saying why (docs/compatibility.md lists each).
 */
export function unsupported(summary: string, why: string, usage: [string, string]): typeof GcCommand {
  return class Unsupported extends GcCommand {
    static override summary = summary;
    static override description = `Not supported here: exits ${EXIT_UNSUPPORTED} with "${why}".`;
    static override examples = [
      { description: 'Upstream’s form (exits 2 here)', command: `<%= config.bin %> ${usage[0]}` },
      { description: 'Another (exits 2 here)', command: `<%= config.bin %> ${usage[1]}` },
    ];
    static override strict = false;

    run(): Promise<void> {
      return Promise.reject(new CliError(why, { exitCode: EXIT_UNSUPPORTED }));
    }
  };
}

const NO_WAITS =
  'not supported: this supervisor has no session waits (no waits API; see docs/compatibility.md)';
const BUILT_IN =
  'not supported: this supervisor’s bead store is built in (no Dolt endpoint to switch); see "gc beads health"';

export const WaitList = unsupported('List session waits (not supported here).', NO_WAITS, [
  'wait list',
  'wait list --state pending',
]);
export const WaitInspect = unsupported('Show a session wait (not supported here).', NO_WAITS, [
  'wait inspect gc-12',
  'wait inspect gc-12 --json',
]);
export const WaitCancel = unsupported('Cancel a session wait (not supported here).', NO_WAITS, [
  'wait cancel gc-12',
  'wait cancel gc-12 gc-13',
]);
export const WaitReady = unsupported('Mark a session wait ready (not supported here).', NO_WAITS, [
  'wait ready gc-12',
  'wait ready gc-12 gc-13',
]);
export const BeadsCityUseExternal = unsupported(
  'Point the city at an external Dolt server (not supported here).',
  BUILT_IN,
  ['beads city use-external --host db --port 3307 --user gc', 'beads city use-external --dry-run'],
);
export const BeadsCityUseManaged = unsupported(
  'Point the city back at its managed Dolt server (not supported here).',
  BUILT_IN,
  ['beads city use-managed', 'beads city use-managed --dry-run'],
);
