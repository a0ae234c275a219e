import t from 'tap';
import { withJetStream } from '../helpers/nats.ts';
import { cliSuite } from './helpers/cliSuite.ts';

// A real supervisor and nats-server are slow to drive through a dozen CLI processes on a busy machine.
t.setTimeout(10 * 60_000);

t.test('gc against a supervisor on the JetStream journal', async (t) => {
  const nats = await withJetStream(t);
  if (!nats) return;
  await cliSuite(t, nats.url);
});
