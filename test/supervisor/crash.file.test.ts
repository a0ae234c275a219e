import t from 'tap';
import { crashScenario } from './crashScenario.ts';

t.test(
  'SIGKILL at random moments (file journal): every accepted request gets exactly one terminal event',
  (t) => crashScenario(t),
);
