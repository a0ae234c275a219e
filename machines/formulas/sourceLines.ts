/**
 * Line numbers of TOML keys and tables in a formula's text, for problems that name a line. TOML parsers
 * answer values, not positions, so this reads the text: good for the shapes formula files use (one key
 * per line, `[vars]`, `[[steps]]`); when a key cannot be found the enclosing table's line is used.
 */
export class SourceLines {
  readonly #lines: string[];
  readonly #steps: number[] = [];
  readonly #varsAt: number;

  constructor(text: string) {
    this.#lines = text.split(/\r?\n/);
    let vars = 0;
    this.#lines.forEach((l, i) => {
      const t = l.trim();
      if (/^\[\[\s*steps\s*\]\]/.test(t)) this.#steps.push(i + 1);
      else if (/^\[\s*vars\s*\]/.test(t)) vars = i + 1;
    });
    this.#varsAt = vars;
  }

  /** The line of top-level `key =` (before any table), else 1. */
  key(key: string): number {
    for (let i = 0; i < this.#lines.length; i++) {
      const t = this.#lines[i]!.trim();
      if (t.startsWith('[')) break;
      if (keyPattern(key).test(t)) return i + 1;
    }
    return this.#findTable(key) ?? 1;
  }

  /** The line of the `i`th `[[steps]]` header (1 when there is none). */
  stepLine(i: number): number {
    return this.#steps[i] ?? this.#findTable('steps') ?? 1;
  }

  /** The line of `key =` inside the `i`th step, else the step's header. */
  stepKey(i: number, key: string): number {
    const start = this.stepLine(i);
    for (let n = start; n < this.#lines.length; n++) {
      const t = this.#lines[n]!.trim();
      if (t.startsWith('[')) break;
      if (keyPattern(key).test(t)) return n + 1;
    }
    return start;
  }

  /** The line declaring variable `name` (`name = …` under `[vars]`, or `[vars.name]`). */
  varLine(name: string): number {
    const table = this.#findTable(`vars.${name}`);
    if (table) return table;
    for (let n = this.#varsAt; n > 0 && n < this.#lines.length; n++) {
      const t = this.#lines[n]!.trim();
      if (t.startsWith('[')) break;
      if (keyPattern(name).test(t)) return n + 1;
    }
    return this.#varsAt || 1;
  }

  #findTable(name: string): number | undefined {
    const re = new RegExp(`^\\[\\[?\\s*${escape(name)}\\s*\\]`);
    const i = this.#lines.findIndex((l) => re.test(l.trim()));
    return i < 0 ? undefined : i + 1;
  }
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const keyPattern = (key: string) => new RegExp(`^["']?${escape(key)}["']?\\s*=`);
