import t from 'tap';
import { citiesSuite } from './citiesSuite.ts';

citiesSuite(t, undefined);
