/** Reading rendered agent output: the ready prompt, trailing blank rows, the last lines. Pure. */

const NBSP = /\u00a0/g;
// CSI and OSC sequences and single-character escapes, as a pipe carries them from a TUI.
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g;

/**
 * Whether a rendered line starts with the ready prompt. NBSP counts as a space (some TUIs draw one), and
 * the prompt's trailing blanks are not required: tmux drops a line's trailing spaces when it captures.
 */
export function hasReadyLine(text: string, prefix: string): boolean {
  const wanted = prefix.replace(NBSP, ' ').trimEnd();
  if (wanted === '') return true;
  return text.split('\n').some((line) => line.replace(NBSP, ' ').startsWith(wanted));
}

/** Drops trailing blank rows (a captured pane has its whole height) and trailing blanks on each row. */
export function trimRendered(text: string): string {
  const lines = text.split('\n').map((line) => line.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

/** The last `count` lines of `text`; `count <= 0` keeps them all. */
export function lastLines(text: string, count: number): string {
  if (count <= 0 || text === '') return text;
  const lines = text.split('\n');
  return lines.slice(Math.max(0, lines.length - count)).join('\n');
}

/** What a terminal would show of one raw output line: escapes removed, a carriage return restarts the line. */
export function renderRawLine(line: string): string {
  const plain = line.replace(ANSI, '').replace(/\r+$/, '');
  const cr = plain.lastIndexOf('\r');
  return cr >= 0 ? plain.slice(cr + 1) : plain;
}
