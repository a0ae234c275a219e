/** The config family's face: what other families may use of it. */
export { CITY_FILE, type Table, strOf, tableOf, tablesOf } from './layers.ts';
export { type ConfigProblem, didYouMean } from './problems.ts';
