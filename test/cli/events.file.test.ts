import t from 'tap';
import { cliSuite } from './helpers/cliSuite.ts';

// A real supervisor is slow to drive through a dozen CLI processes on a busy machine.
t.setTimeout(10 * 60_000);

t.test('gc against a supervisor on the file journal', (t) => cliSuite(t, undefined));
