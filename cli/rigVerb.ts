import { cityPath, cityTarget, mutate } from './configClient.ts';
import { compact } from './jsonl.ts';

/**
 * Runs a bodyless rig mutation: `remove` (DELETE /rig/{name}) or an action (POST /rig/{name}/{action})
 * and resolves with the answer as one compact JSON line.
 *
 * Effects: API discovery, one HTTP request. @throws ApiError (e.g. 404 not_found:), CliError
 */
export async function runRigVerb(
  flags: { api?: string; city?: string },
  name: string,
  verb: 'remove' | 'suspend' | 'resume' | 'restart',
): Promise<string> {
  const { client, city } = await cityTarget(flags);
  const body =
    verb === 'remove'
      ? await mutate<unknown>(client, 'DELETE', cityPath(city, 'rig', name))
      : await mutate<unknown>(client, 'POST', cityPath(city, 'rig', name, verb));
  return compact(body ?? { status: 'ok' });
}
