/** The orders family's face: what other families may use of it. */
export { goDurationMs } from './order.ts';
