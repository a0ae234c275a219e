/** The sling family's face: what other families and the HTTP layer may use of it. */
export { sling } from './sling.ts';
export { slingDefaultBranch } from './defaultBranch.ts';
