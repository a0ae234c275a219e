/** The beads family's actor side: the per-city bead store service. */
export { BeadStore, type CommandOptions, type KeyedOptions } from './beadStore.ts';
export {
  BeadCommandRunner,
  type RunnerOptions,
  type SnapshotPolicy,
  type StartupStats,
} from './commandRunner.ts';
export { readSnapshot, writeSnapshot, captureSnapshot, type SnapshotAnchor } from './snapshot.ts';
export { requestHash } from './idempotency.ts';
export {
  BEAD_SERVICE,
  beadStoreService,
  startBeadService,
  type BeadService,
  type BeadServiceOptions,
} from './startBeadService.ts';
