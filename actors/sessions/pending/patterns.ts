/**
 * Every screen pattern the pending-interaction parser knows, in one table (screen scraping is brittle: when an
 * agent CLI changes its wording, this file and its recorded captures in test/fixtures/captures change
 * together). Upstream's facts (tmux/interaction.go, 2026-04): an approval is pending when the last 40 lines
 * show one of the approval markers below the latest tool header `● Tool(args)`; no header, no approval (prose
 * that mentions approval is not a prompt). Keys: 1 approves, 2 approves and stops asking, 3 denies.
 */

/** Lines of the screen the parser reads. */
export const PENDING_SCREEN_LINES = 40;

export interface ApprovalPattern {
  /** Which CLI draws it (documentation and test names). */
  source: string;
  /** A line containing this text marks the prompt. */
  marker: string;
}

export const APPROVAL_PATTERNS: readonly ApprovalPattern[] = [
  { source: 'claude: a Bash command', marker: 'This command requires approval' },
  { source: 'claude: a file edit', marker: 'Approve edits?' },
];

/**
 * Lines an approval menu is drawn with, below its marker (box borders stripped first). Any other line after
 * the marker means the menu was answered and the agent went on: the prompt is stale scrollback.
 */
export const MENU_LINES: readonly RegExp[] = [
  /^$/,
  /^(❯\s*)?\d+\.\s/,
  /^Do you want to (proceed|make this edit)/,
  /^Esc to cancel/i,
  /^[─━╌]+$/,
];

/** Box-drawing borders Claude draws around a menu. */
export const BOX_BORDER = /^[\s│┃╭╮╰╯─]*|[\s│┃╭╮╰╯─]*$/g;

/** A tool header: `● Name(args)` (Claude draws the bullet; the args may be empty). */
export const TOOL_HEADER = /^\s*[●⏺]\s*([A-Za-z][\w.:-]*)\((.*)\)\s*$/;

/** The choices of an approval menu, in key order. */
export const APPROVAL_OPTIONS = ['Yes', "Yes, and don't ask again", 'No'] as const;

/** The key each respond action types into an approval menu. */
export const APPROVAL_KEYS: Readonly<Record<string, string>> = {
  approve: '1',
  allow: '1',
  approve_always: '2',
  approve_accept_edits: '2',
  deny: '3',
};

/** The interaction kind of an approval (upstream's). */
export const APPROVAL_KIND = 'approval';
