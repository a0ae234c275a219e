/** The inspect family's face: what other families and the HTTP layer may use of it. */
export { ActorInspection } from './actorInspection.ts';
export { ActorView } from './actorView.ts';
export { connectStatelyInspector } from './statelyInspector.ts';
