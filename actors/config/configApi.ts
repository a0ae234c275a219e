/**
 * What the HTTP routes see of a city's configuration (`LiveCity.services[CONFIG_SERVICE]`): the config
 * views, packs, providers, rigs and patches. Every write goes through the city's one config writer
 * (validate → write-rename of city.toml → `config.changed` through the city's log). Errors are the
 * catalogue's: NotFoundError (404), ConflictError (409), ValidationError (422 naming file and field or the
 * body field); nothing changes when one is thrown.
 */
import type {
  ConfigExplainResponse,
  ConfigResponse,
  ConfigValidateOutputBody,
  PackResponse,
} from '../../schemas/config.ts';
import type { PatchAnswer, PatchRecord } from '../../schemas/patches.ts';
import type {
  ProviderCreateInputBody,
  ProviderPublicResponse,
  ProviderResponse,
  ProviderUpdateInputBody,
} from '../../schemas/providers.ts';
import type {
  RigAction,
  RigActionBody,
  RigCreateInputBody,
  RigResponse,
  RigUpdateInputBody,
} from '../../schemas/rigs.ts';
import type { PatchKind } from './patchEdits.ts';

export interface ConfigApi {
  /** The city log's head the answers reflect (`X-GC-Index`). */
  readonly index: number;
  config(): Promise<ConfigResponse>;
  /**
   * How many agents and rigs (and suspended rigs) the effective config declares, as last read: no file
   * check, for the city detail and status, which dashboards poll.
   */
  counts(): { agents: number; rigs: number; suspendedRigs: number };
  defaults(): ConfigResponse;
  explain(): Promise<ConfigExplainResponse>;
  validate(): Promise<ConfigValidateOutputBody>;
  packs(): Promise<PackResponse[]>;

  providers(): Promise<ProviderResponse[]>;
  publicProviders(): Promise<ProviderPublicResponse[]>;
  provider(name: string): Promise<ProviderResponse>;
  createProvider(body: ProviderCreateInputBody, actor: string): Promise<string>;
  updateProvider(name: string, body: ProviderUpdateInputBody, actor: string): Promise<void>;
  deleteProvider(name: string, actor: string): Promise<void>;

  rigs(options: { git?: boolean }): Promise<{ items: RigResponse[]; partialErrors: string[] }>;
  rig(name: string, options: { git?: boolean }): Promise<RigResponse>;
  createRig(body: RigCreateInputBody, actor: string): Promise<string>;
  updateRig(name: string, body: RigUpdateInputBody, actor: string): Promise<void>;
  deleteRig(name: string, actor: string): Promise<void>;
  rigAction(name: string, action: RigAction, actor: string): Promise<RigActionBody>;

  patches(kind: PatchKind): Promise<PatchRecord[]>;
  patch(kind: PatchKind, key: string): Promise<PatchRecord>;
  putPatch(kind: PatchKind, body: Record<string, unknown>, actor: string): Promise<PatchAnswer>;
  deletePatch(kind: PatchKind, key: string, actor: string): Promise<PatchAnswer>;
}

/** The name of the config service in `LiveCity.services`. */
export const CONFIG_SERVICE = 'config';
