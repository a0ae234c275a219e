import type { Static } from 'typebox';
import { UnavailableError } from '../../actors/runtime/errors.ts';
import type { StatusRigDetail, StatusSessionCountsDetail } from '../../schemas/cityStatusDetails.ts';
import type { AppDeps } from '../deps.ts';
import { configApiFor } from './configService.ts';
import { sessionApiFor } from './sessionsService.ts';

/** The per-rig rows and session counts of a city's status; a block its service cannot give is absent. */
export interface StatusDetails {
  rig_details?: Static<typeof StatusRigDetail>[];
  session_counts_detail?: Static<typeof StatusSessionCountsDetail>;
}

/**
 * Reads the rig rows (from the effective config, without git probes) and the active and suspended session
 * counts of a running city. A service the city runs without leaves its block out (status already says
 * which service is missing in `partial_errors`).
 * Effects: reads the city's config and session services.
 * @throws NotFoundError while the city is not running; what the services throw besides UnavailableError.
 */
export async function statusDetails(deps: Pick<AppDeps, 'cities'>, cityName: string): Promise<StatusDetails> {
  const out: StatusDetails = {};
  try {
    const { items } = await configApiFor(deps, cityName).rigs({ git: false });
    out.rig_details = items.map((rig) => ({ name: rig.name, path: rig.path, suspended: rig.suspended }));
  } catch (err) {
    if (!(err instanceof UnavailableError)) throw err;
  }
  try {
    const sessions = sessionApiFor(deps, cityName);
    const [active, suspended] = await Promise.all([
      sessions.list({ state: 'active', limit: 1 }),
      sessions.list({ state: 'suspended', limit: 1 }),
    ]);
    out.session_counts_detail = { active: active.total, suspended: suspended.total };
  } catch (err) {
    if (!(err instanceof UnavailableError)) throw err;
  }
  return out;
}
