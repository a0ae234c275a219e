/** The config family's face: what other families and the HTTP layer may use of it. */
export {
  type AgentConfig,
  type CityConfig,
  cityTomlPath,
  readCityToml,
  renderCityToml,
} from './cityConfig.ts';
export { CONFIG_SERVICE, type ConfigApi } from './configApi.ts';
export { type ConfigWriter, configWriterFor, settlePendingWrite } from './configWriter.ts';
export { effectiveConfig } from './effectiveConfig.ts';
export { readFragments } from './fragments.ts';
export { materializePacks, readPacks, readRigPacks } from './packs.ts';
export { type PatchKind, putPatch } from './patchEdits.ts';
export {
  BUILTIN_PROVIDERS,
  HARD_DEPENDENCIES,
  isBuiltinProvider,
  normalizeBootstrapProfile,
} from './providers.ts';
export { configServiceFactory } from './startConfigService.ts';
