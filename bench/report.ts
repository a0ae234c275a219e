/** One scenario's outcome as `bench/run.ts` collected it. */
export interface ScenarioResult {
  name: string;
  ok: boolean;
  seconds?: number;
  data?: unknown;
  error?: string;
}

/** A figure with the floor it is compared against, measured in the same run. */
export interface Figure {
  name: string;
  value: number;
  unit?: string;
  floor?: number;
  floor_name?: string;
  target?: string;
}

export interface Report {
  generated_at: string;
  mode: string;
  node: string;
  scenarios: ScenarioResult[];
}

const fmt = (v: unknown): string =>
  typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(v < 10 ? 3 : 1)) : JSON.stringify(v);

/** Flattens nested JSON into `a.b.c = value` rows. Pure. */
export function flatten(value: unknown, prefix = ''): Array<[string, unknown]> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [[prefix, value]];
  return Object.entries(value).flatMap(([k, v]) => flatten(v, prefix ? `${prefix}.${k}` : k));
}

const isFigures = (v: unknown): v is Figure[] =>
  Array.isArray(v) && v.every((f) => typeof f === 'object' && f !== null && 'name' in f && 'value' in f);

/** Renders the report as a Markdown table per scenario. Pure. */
export function renderReport(report: Report): string {
  const lines = [
    '# Benchmark report',
    '',
    `Generated ${report.generated_at} by \`npm run bench\` (${report.mode} mode, Node ${report.node}, this machine).`,
    'Each figure sits beside its floor measured in the same run; ratio = figure / floor.',
    '',
  ];
  for (const s of report.scenarios) {
    lines.push(`## ${s.name}`, '');
    if (!s.ok) {
      lines.push(`Failed: ${s.error ?? 'unknown error'}`, '');
      continue;
    }
    const data = s.data as { figures?: unknown } | undefined;
    if (data && isFigures(data.figures)) {
      lines.push('| figure | value | floor | ratio | target |', '|---|---|---|---|---|');
      for (const f of data.figures) {
        const unit = f.unit ? ` ${f.unit}` : '';
        const floor = f.floor === undefined ? '' : `${fmt(f.floor)}${unit} (${f.floor_name ?? 'floor'})`;
        const ratio = f.floor ? fmt(f.value / f.floor) : '';
        lines.push(`| ${f.name} | ${fmt(f.value)}${unit} | ${floor} | ${ratio} | ${f.target ?? ''} |`);
      }
    } else {
      lines.push('| figure | value |', '|---|---|');
      for (const [k, v] of flatten(s.data)) lines.push(`| ${k} | ${fmt(v)} |`);
    }
    lines.push('', `(${fmt(s.seconds ?? 0)} s)`, '');
  }
  return lines.join('\n');
}
