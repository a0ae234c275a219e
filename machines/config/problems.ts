/** One problem of a city's configuration, naming the file and the field it is in. */
export interface ConfigProblem {
  severity: 'error' | 'warning';
  /** Relative to the city directory: `city.toml`, `packs/base/pack.toml`. */
  file: string;
  /** A TOML path: `agent[2].provider`, `providers.foo.command`, `patches.rigs[0]`. */
  field: string;
  message: string;
}

/** `city.toml: agent[2].provider: unknown provider "x"`: the one-line form of upstream's string lists. Pure. */
export const renderProblem = (p: ConfigProblem): string => `${p.file}: ${p.field}: ${p.message}`;

/** Levenshtein distance (for "did you mean"). Pure. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const here = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = here;
    }
  }
  return row[b.length]!;
}

/** ` (did you mean "x"?)` for the closest known key within distance 2, else ''. Pure. */
export function didYouMean(key: string, known: Iterable<string>): string {
  let best: string | undefined;
  let bestD = 3;
  for (const k of known) {
    const d = editDistance(key, k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best ? ` (did you mean "${best}"?)` : '';
}
