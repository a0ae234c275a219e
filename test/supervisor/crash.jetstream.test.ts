import t from 'tap';
import { withJetStream } from '../helpers/nats.ts';
import { crashScenario } from './crashScenario.ts';

const nats = await withJetStream(t);
if (nats) {
  t.test(
    'SIGKILL at random moments (JetStream): every accepted request gets exactly one terminal event',
    (t) => crashScenario(t, nats.url),
  );
}
