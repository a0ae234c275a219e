import type { ClusterRouting } from '../actors/supervisor/cluster/clusterCoordinator.ts';
import type { SupervisorConfig } from '../actors/supervisor/supervisorConfig.ts';
import type { ActorView } from '../actors/inspect/index.ts';
import type { LiveCities } from '../actors/supervisor/liveCities.ts';
import type { SupervisorApi } from '../actors/supervisor/supervisorApi.ts';

/** What the HTTP layer needs from the rest of the supervisor. Routes take these, never globals. */
export interface AppDeps {
  config: SupervisorConfig;
  /** Open city logs and running state: the read model every per-city and event route serves from. */
  cities: LiveCities;
  /** Mutations answer 403 read_only (bound to a non-loopback address without allow_mutations). */
  readOnly: boolean;
  /** City lifecycle operations, city views and readiness probes (`actors/supervisor/supervisor.ts`). */
  supervisor: SupervisorApi;
  /** The live actor view (`/v0/actors`); absent in apps built without a supervisor's actors. */
  actors?: ActorView;
  /** Cluster mode: who owns each city, forwarding, the broker connection (http/clusterRouting.ts). */
  cluster?: ClusterRouting;
}
