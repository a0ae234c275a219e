import * as Flags from '@oclif/core/flags';
import { ApiClient } from '../api.ts';
import { listCities } from '../cities.ts';
import { cityPath } from '../cityClient.ts';
import { resolveScope } from '../cityScope.ts';
import { GcCommand } from '../command.ts';
import { DEFAULT_API, discoverApi } from '../discover.ts';
import { errorText } from '../errors.ts';
import { agentFlags } from '../agentClient.ts';
import type { DoctorCheck, DoctorReport } from '../../schemas/doctor.ts';

/** One line of the report: upstream's check result. */
type Check = Pick<DoctorCheck, 'name' | 'status' | 'message' | 'hint' | 'details' | 'fixed'>;

const ICON = { ok: '✓', warning: '⚠', error: '✗' } as const;
/** Providers the supervisor can probe (GET /v0/provider-readiness). */
const PROBED = new Set(['claude', 'codex', 'gemini']);

/** The report's lines: a line per check (hint and, verbose, details under it), a blank, the summary. Pure. */
export function reportLines(checks: readonly Check[], verbose: boolean): string[] {
  const lines: string[] = [];
  for (const c of checks) {
    const icon = c.fixed ? ICON.ok : ICON[c.status];
    lines.push(`  ${icon} ${c.name} — ${c.message}${c.fixed ? ' (fixed)' : ''}`);
    if (verbose) for (const d of c.details ?? []) lines.push(`      ${d}`);
    if (c.status !== 'ok' && !c.fixed && c.hint) lines.push(`    hint: ${c.hint}`);
  }
  const n = (p: (c: Check) => boolean) => checks.filter(p).length;
  const counts: [number, string][] = [
    [n((c) => c.status === 'ok' && !c.fixed), 'passed'],
    [n((c) => c.status === 'warning' && !c.fixed), 'warnings'],
    [n((c) => c.status === 'error' && !c.fixed), 'failed'],
    [n((c) => c.fixed === true), 'fixed'],
  ];
  const summary = counts.filter(([k]) => k > 0).map(([k, what]) => `${k} ${what}`);
  lines.push('', checks.length === 0 ? 'No checks ran.' : summary.join(', '));
  return lines;
}

/** `gc doctor`: the health of the supervisor and the city in scope, one check per line. */
export default class Doctor extends GcCommand {
  static override summary = 'Check the supervisor and the city in scope; --fix repairs what it can.';
  static override description = `One line per check ("  ✓ name — message", ⚠ for a warning, ✗ for a failure, " (fixed)" when --fix repaired it), a "hint:" line under each problem, then a summary ("5 passed, 1 warnings"). Checks: the supervisor is reachable (GET /health, naming its address), the city is registered and running (GET /v0/cities), the journal is healthy and the city's log answers (GET /health?extras=true, GET /events?limit=1), city.toml is valid (GET /config/validate: errors fail, warnings warn), the providers the city's agents use are ready (GET /v0/provider-readiness), and the supervisor-side checks (GET /doctor: the gc and bd shims on the sessions' PATH in <city>/.gc/bin, the bead types gc needs). --fix asks POST /doctor/fix to repair the fixable ones (rewrite the shims) and shows the re-run checks. Exit 1 iff a check failed.`;
  static override examples = [
    { description: 'Check the city in scope', command: '<%= config.bin %> doctor' },
    { description: 'Repair missing shims, with details', command: '<%= config.bin %> doctor --fix -v' },
  ];
  static override flags = {
    ...agentFlags,
    fix: Flags.boolean({ description: 'fix what can be fixed, then re-run those checks' }),
    verbose: Flags.boolean({ char: 'v', description: 'print each check’s details' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Doctor);
    const checks = await this.#checks(flags);
    for (const line of reportLines(checks, flags.verbose)) await this.out(line);
    if (checks.some((c) => c.status === 'error' && !c.fixed)) process.exitCode = 1;
  }

  async #checks(flags: { api?: string; city?: string; fix: boolean }): Promise<Check[]> {
    const checks: Check[] = [];
    let base: string;
    try {
      base = await discoverApi(flags.api);
    } catch (err) {
      // Nothing answers at any address discovery knows: the first check fails, naming the default one.
      checks.push({
        name: 'supervisor',
        status: 'error',
        message: `${errorText(err)} (tried ${DEFAULT_API})`,
        hint: 'start it with "gc supervisor start", or point GC_API / --api at it',
      });
      return checks;
    }
    const client = new ApiClient(base);
    const health = await client
      .getJson<{ status: string; version: string; journal?: string }>('/health', { extras: 'true' })
      .then((r) => r.body)
      .catch((err: unknown) => err as Error);
    if (health instanceof Error) {
      checks.push({
        name: 'supervisor',
        status: 'error',
        message: `cannot reach the supervisor at ${client.base}: ${unreachable(health)}`,
        hint: 'start it with "gc supervisor start", or point GC_API / --api at it',
      });
      return checks;
    }
    checks.push({
      name: 'supervisor',
      status: 'ok',
      message: `reachable at ${client.base} (version ${health.version})`,
    });
    const city = await this.#cityCheck(client, flags.city, checks);
    checks.push(await journalCheck(client, health, city));
    if (city === undefined) return checks;
    checks.push(...(await Promise.all([configCheck(client, city), providersCheck(client, city)])));
    const at = cityPath(city, 'doctor');
    const report = flags.fix
      ? (await client.postJson<DoctorReport>(`${at}/fix`)).body
      : (await client.getJson<DoctorReport>(at)).body;
    checks.push(...report.checks);
    return checks;
  }

  /** The `city` check; resolves the city's name when it is running (the per-city checks need it). */
  async #cityCheck(
    client: ApiClient,
    flag: string | undefined,
    checks: Check[],
  ): Promise<string | undefined> {
    try {
      const scope = await resolveScope(client, { flag, env: process.env, cwd: process.cwd() });
      if (scope.kind !== 'city') {
        checks.push({
          name: 'city',
          status: 'error',
          message: 'no city in scope',
          hint: 'pass --city <name>, set GC_CITY, or run inside a city directory',
        });
        return undefined;
      }
      const info = (await listCities(client)).find((c) => c.name === scope.city);
      if (!info) {
        checks.push({
          name: 'city',
          status: 'error',
          message: `${scope.city} is not registered`,
          hint: 'register it with "gc city create <dir>"; see "gc cities"',
        });
        return undefined;
      }
      if (!info.running) {
        checks.push({
          name: 'city',
          status: 'error',
          message: `${info.name} is registered but not running (${info.status ?? 'stopped'})`,
          hint: info.error ?? 'see "gc status" and the supervisor log',
        });
        return undefined;
      }
      checks.push({ name: 'city', status: 'ok', message: `${info.name} running at ${info.path}` });
      return info.name;
    } catch (err) {
      checks.push({ name: 'city', status: 'error', message: errorText(err) });
      return undefined;
    }
  }
}

/**
 * The `journal` check: the supervisor says it is healthy (GET /health) and the city's log answers a read
 * (GET /events?limit=1: its head, X-GC-Index).
 */
async function journalCheck(
  client: ApiClient,
  health: { status: string; journal?: string },
  city: string | undefined,
): Promise<Check> {
  const backend = `${health.journal ?? 'file'} journal`;
  if (health.status !== 'ok')
    return { name: 'journal', status: 'error', message: `${backend}: supervisor status ${health.status}` };
  if (city === undefined) return { name: 'journal', status: 'ok', message: `${backend} healthy` };
  try {
    const { headers } = await client.getJson(cityPath(city, 'events'), { limit: 1 });
    return {
      name: 'journal',
      status: 'ok',
      message: `${backend} healthy (${city} at seq ${headers.get('x-gc-index') ?? '?'})`,
    };
  } catch (err) {
    return {
      name: 'journal',
      status: 'error',
      message: `${backend}: the city's log does not answer: ${errorText(err)}`,
      hint: 'see the supervisor log',
    };
  }
}

/** A transport failure's cause, without the URL the check's message already names. Pure. */
function unreachable(err: Error): string {
  return errorText(err).replace(/^cannot reach \S+: /, '');
}

/** The `config` check: GET /config/validate (errors fail, warnings warn). */
async function configCheck(client: ApiClient, city: string): Promise<Check> {
  const { body } = await client.getJson<{
    valid: boolean;
    errors: string[] | null;
    warnings: string[] | null;
  }>(cityPath(city, 'config', 'validate'));
  const errors = body.errors ?? [];
  const warnings = body.warnings ?? [];
  const details = [...errors, ...warnings];
  const hint = 'run "gc config validate" for each problem';
  if (errors.length > 0)
    return {
      name: 'config',
      status: 'error',
      message: `city.toml has ${errors.length} error(s)`,
      hint,
      details,
    };
  if (warnings.length > 0)
    return {
      name: 'config',
      status: 'warning',
      message: `city.toml is valid, with ${warnings.length} warning(s)`,
      hint,
      details,
    };
  return { name: 'config', status: 'ok', message: 'city.toml is valid' };
}

/** The `providers` check: the probed providers the city's agents use are installed and signed in. */
async function providersCheck(client: ApiClient, city: string): Promise<Check> {
  const { body } = await client.getJson<{ items: { provider?: string }[] | null }>(cityPath(city, 'agents'));
  const used = [...new Set((body.items ?? []).map((a) => a.provider ?? ''))].filter((p) => PROBED.has(p));
  if (used.length === 0)
    return { name: 'providers', status: 'ok', message: 'no agent uses a provider that needs sign-in' };
  const ready = await client.getJson<{ providers: Record<string, { status: string; detail?: string }> }>(
    '/v0/provider-readiness',
    { providers: used.sort().join(',') },
  );
  const entries = Object.entries(ready.body.providers);
  const bad = entries.filter(([, r]) => r.status !== 'configured');
  const details = entries.map(([p, r]) => `${p}: ${r.status}${r.detail ? ` (${r.detail})` : ''}`);
  if (bad.length === 0)
    return { name: 'providers', status: 'ok', message: `${used.join(', ')} ready`, details };
  return {
    name: 'providers',
    status: 'warning',
    message: bad.map(([p, r]) => `${p} ${r.status}`).join(', '),
    hint: 'install the provider CLI and sign in, as "gc supervisor status" shows',
    details,
  };
}
