import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { join } from 'node:path';
import { Type } from 'typebox';
import { staleToolShims, writeToolShims } from '../../actors/sessions/index.ts';
import { CityNameParam, MutationHeaders } from '../../schemas/beadsCommon.ts';
import {
  DoctorReportSchema,
  REQUIRED_BEAD_TYPES,
  type DoctorCheck,
  type DoctorReport,
} from '../../schemas/doctor.ts';
import { NOT_RUNNING, runningCity } from '../cityScope.ts';
import type { AppDeps } from '../deps.ts';

const tags = ['doctor'];
const CityParams = Type.Object({ cityName: CityNameParam });

/** The `shims` check: `gc` and `bd` on the sessions' PATH (`<city>/.gc/bin`). Effects: reads the dir. */
function shimsCheck(cityPath: string): DoctorCheck {
  const dir = join(cityPath, '.gc', 'bin');
  const stale = staleToolShims(dir);
  if (stale.length === 0)
    return { name: 'shims', status: 'ok', message: `gc and bd shims in ${dir}`, fixable: true };
  return {
    name: 'shims',
    status: 'error',
    message: stale.map((s) => `${s.tool} shim ${s.problem}`).join(', '),
    fixable: true,
    hint: 'run "gc doctor --fix" to rewrite them (a city start writes them too)',
    details: stale.map((s) => `${join(dir, s.tool)}: ${s.problem}`),
  };
}

/**
 * The `custom-types` check: upstream's doctor wants bd's `types.custom` to hold the types gc writes. Our
 * bead store is built in and takes any non-empty `issue_type`, so every required type is accepted. Pure.
 */
function customTypesCheck(): DoctorCheck {
  return {
    name: 'custom-types',
    status: 'ok',
    message: `the built-in bead store accepts all ${REQUIRED_BEAD_TYPES.length} types gc uses`,
    fixable: false,
    details: [REQUIRED_BEAD_TYPES.join(', ')],
  };
}

/** Every check of a city's report. Effects: reads the city's `.gc/bin`. */
function report(cityPath: string): DoctorReport {
  return { checks: [shimsCheck(cityPath), customTypesCheck()] };
}

/**
 * Ours: `GET /v0/city/{cityName}/doctor` (the checks `gc doctor` cannot make over the other routes) and
 * `POST /v0/city/{cityName}/doctor/fix` (fixes the fixable failing ones, then answers the re-run checks,
 * each fixed one marked `fixed`).
 */
export function doctorRoutes(scope: FastifyInstance, deps: AppDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v0/city/:cityName/doctor',
    {
      schema: {
        operationId: 'get-v0-city-by-city-name-doctor',
        summary: 'Run the supervisor-side health checks of a city (ours: gc doctor)',
        description: `The gc and bd shims sessions find on their PATH, and the bead types gc needs. ${NOT_RUNNING}`,
        tags,
        params: CityParams,
        response: { 200: DoctorReportSchema },
      },
    },
    async (request) => report(runningCity(deps, request.params.cityName).path),
  );
  app.post(
    '/v0/city/:cityName/doctor/fix',
    {
      schema: {
        operationId: 'post-v0-city-by-city-name-doctor-fix',
        summary: 'Fix what the city’s checks found fixable, then re-run them (ours: gc doctor --fix)',
        description: `Rewrites missing or stale gc and bd shims in <city>/.gc/bin. ${NOT_RUNNING}`,
        tags,
        params: CityParams,
        headers: MutationHeaders,
        response: { 200: DoctorReportSchema },
      },
    },
    async (request) => {
      const path = runningCity(deps, request.params.cityName).path;
      const before = report(path);
      const broken = new Set(before.checks.filter((c) => c.status !== 'ok' && c.fixable).map((c) => c.name));
      if (broken.has('shims')) writeToolShims(join(path, '.gc', 'bin'));
      const after = report(path);
      for (const c of after.checks) if (broken.has(c.name) && c.status === 'ok') c.fixed = true;
      return after;
    },
  );
}
