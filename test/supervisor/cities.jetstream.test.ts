import t from 'tap';
import { withJetStream } from '../helpers/nats.ts';
import { citiesSuite } from './citiesSuite.ts';

const nats = await withJetStream(t);
if (nats) citiesSuite(t, nats.url);
