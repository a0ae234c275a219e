import type { FastifyInstance } from 'fastify';
import type { CityServiceFactory } from '../actors/runtime/cityServices.ts';
import type { AppDeps } from './deps.ts';

/**
 * What a family brings to a served supervisor, from its own folders: the per-city services its actors start
 * (its descriptors, in start order) and the routes that serve them. It lives at the http floor because only
 * this floor sees both; its event types register themselves from its schemas file (schemas/eventCatalog.ts's
 * `registerFamilyEvents`). Listed once, in `http/families.ts`: that line is the whole of a family's
 * registration.
 */
export interface ServedFamily {
  /** The family's folder name (`beads`, `sessions`, …): for messages and docs. */
  readonly name: string;
  /** Its city services, started in their phases in this order (none for a family of routes over others'). */
  readonly services: readonly CityServiceFactory[];
  /** Registers its routes on the app's scope (validate, call the service, map the result). */
  readonly routes: (scope: FastifyInstance, deps: AppDeps) => void;
}

/** The city services of `families`, in family order then each family's own: what every city starts. */
export const servicesOf = (families: readonly ServedFamily[]): CityServiceFactory[] =>
  families.flatMap((family) => family.services);
