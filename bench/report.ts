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
    lines.push('', `(${fmt(s.seconds ?? 0)} s, measured ${report.generated_at})`, '');
  }
  return lines.join('\n');
}

/**
 * `previous` (a REPORT.md) with the scenarios of `report` put in place of their old sections, the others
 * kept as they were measured, in `order`; the header says which were re-run and when. A partial run
 * (`BENCH_ONLY`) so refreshes some figures without dropping the rest of the report. Pure.
 */
export function mergeReport(previous: string, report: Report, order: readonly string[]): string {
  const sections = new Map<string, string>();
  const parts = previous.split(/^## /m);
  let header = parts[0]!.trimEnd();
  for (const part of parts.slice(1)) {
    const name = part.slice(0, part.indexOf('\n')).trim();
    sections.set(name, `## ${part.trimEnd()}\n`);
  }
  const fresh = renderReport(report).split(/^## /m).slice(1);
  for (const part of fresh) {
    const name = part.slice(0, part.indexOf('\n')).trim();
    sections.set(name, `## ${part.trimEnd()}\n`);
  }
  const names = report.scenarios.map((s) => s.name).join(', ');
  header += `\nRe-run ${report.generated_at} (${report.mode} mode, Node ${report.node}): ${names}.`;
  const ordered = [
    ...order.filter((n) => sections.has(n)),
    ...[...sections.keys()].filter((n) => !order.includes(n)),
  ];
  return [header, '', ...ordered.map((n) => sections.get(n)!)].join('\n');
}
