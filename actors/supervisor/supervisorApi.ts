import type {
  AsyncAcceptedResponse,
  CityCreateRequest,
  CityInfo,
  CityRegisterRequest,
} from '../../schemas/cities.ts';
import type { Readiness } from './readiness.ts';

/** A city as `GET /v0/cities` lists it (upstream CityInfo): this supervisor always says its status and phases. */
export type CityInfoView = CityInfo & Required<Pick<CityInfo, 'status' | 'phases_completed'>>;

/** A running city as `GET /v0/city/{cityName}` shows it (upstream CityGetResponse). */
export interface CityDetailView {
  name: string;
  path: string;
  suspended: boolean;
  uptime_sec: number;
  agent_count: number;
  rig_count: number;
  provider?: string;
  version?: string;
}

/** The create-city body (upstream CityCreateRequest), after schema validation. */
export type CreateCityInput = CityCreateRequest;

/** The 202 body of an async supervisor operation (upstream AsyncAcceptedResponse). */
export type AsyncAccepted = AsyncAcceptedResponse;

/**
 * What the HTTP layer may ask of the supervisor. Every method throws only `GcError`s for expected
 * outcomes (404, 409, 422, 503, …); `http/problem.ts` maps them.
 */
export interface SupervisorApi {
  /** When this supervisor process started (for `uptime_sec`). */
  readonly startedAt: Date;
  readonly version: string;
  readonly readiness: Readiness;
  /** Every registered city and every city still being unregistered, sorted by name. */
  listCities(): CityInfoView[];
  /** A running city's detail, or undefined when it is not running. */
  cityDetail(name: string): CityDetailView | undefined;
  /** `POST /v0/city`. */
  createCity(input: CreateCityInput): Promise<AsyncAccepted>;
  /** `POST /v0/city/{cityName}/unregister`. */
  unregisterCity(name: string): Promise<AsyncAccepted>;
  /** `POST /v0/city/{cityName}/stop`: resolves once the city's controller stopped. */
  stopCity(name: string): Promise<void>;
  /** `PATCH /v0/city/{cityName}` `{suspended}`. */
  setSuspended(name: string, suspended: boolean): Promise<void>;
  /** `POST /v0/city/{cityName}/start` (ours): resolves once a stopped or failed city runs again. */
  startCity(name: string): Promise<void>;
  /** `POST /v0/cities/register` (ours): registers an existing city directory (202). */
  registerCity(input: RegisterCityInput): Promise<AsyncAccepted>;
}

/** What `POST /v0/cities/register` asks: an existing city directory and, optionally, its registered name. */
export type RegisterCityInput = CityRegisterRequest;

/** The supervisor's version (upstream reports its build's). */
export const SUPERVISOR_VERSION = '0.1.0';
