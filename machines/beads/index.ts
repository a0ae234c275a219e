/** The beads family's pure logic: model, decider, fold and queries (no I/O). */
export * from './beadShape.ts';
export * from './commands.ts';
export * from './convoyView.ts';
export * from './cycles.ts';
export * from './decide.ts';
export * from './decideConvoy.ts';
export * from './decision.ts';
export * from './events.ts';
export * from './evolve.ts';
export * from './ids.ts';
export * from './mailQueries.ts';
export * from './mailView.ts';
export * from './model.ts';
export * from './paging.ts';
export * from './queries.ts';
export * from './ready.ts';
export * from './indexes.ts';
export { decideCreate, decideUpdate } from './decideBead.ts';
