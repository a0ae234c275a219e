/**
 * A bd failure: one line on stderr (`Error: <message>`) and exit 1, as bd reports every failure. With
 * `--json` the paths that answer on stdout (show, update, close, reopen, dep, label) print
 * `{"error": …}` there instead.
 */
export class BdError extends Error {
  readonly exitCode: number = 1;
}

/**
 * A command or flag of bd's that we do not implement: exit 2 (never 1, so a script can tell "bd said no"
 * from "this bd cannot"), one line naming it, nothing changed.
 */
export class UnsupportedError extends BdError {
  override readonly exitCode = 2;
}
