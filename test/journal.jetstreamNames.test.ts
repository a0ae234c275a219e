import t from 'tap';
import { streamAddress } from '../actors/runtime/journal/jetstreamNames.ts';

const VALID_STREAM = /^[A-Za-z0-9_-]{1,64}$/;
const VALID_SUBJECT = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/;

t.test('one city directory always maps to the same stream and subject', async (t) => {
  const a = streamAddress('/srv/cities/bright-lights/.gc/events.jsonl');
  t.same(streamAddress('/srv/cities/bright-lights/.gc/events.jsonl'), a, 'stable');
  t.same(
    streamAddress('/srv/cities/x/../bright-lights/.gc//events.jsonl'),
    a,
    'the path is normalised first',
  );
  t.match(a.stream, /^GC_bright-lights_[0-9a-f]{8}$/, 'named after the city directory');
  t.match(a.subject, /^gc\.ev\.[0-9a-f]{8}$/);
  t.equal(a.subject.slice(-8), a.stream.slice(-8), 'stream and subject share the hash');
});

t.test('different files map to different streams even with the same directory name', async (t) => {
  const a = streamAddress('/one/city/.gc/events.jsonl');
  const b = streamAddress('/two/city/.gc/events.jsonl');
  t.not(a.stream, b.stream);
  t.not(a.subject, b.subject);
});

t.test('any directory name yields a valid stream name and subject', async (t) => {
  for (const file of [
    '/tmp/my city.v2/.gc/events.jsonl',
    '/tmp/città*>/.gc/events.jsonl',
    '/home/me/.gc/events.jsonl',
    '/events.jsonl',
    `/tmp/${'long'.repeat(40)}/.gc/events.jsonl`,
  ]) {
    const { stream, subject } = streamAddress(file, 'Acme_1');
    t.match(stream, VALID_STREAM, `${file} → ${stream}`);
    t.match(subject, VALID_SUBJECT, `${file} → ${subject}`);
  }
});

t.test('a prefix namespaces streams and subjects, case-insensitively', async (t) => {
  const file = '/c/.gc/events.jsonl';
  t.match(streamAddress(file, 'blue'), { stream: /^BLUE_/, subject: /^blue\.ev\./ });
  t.same(streamAddress(file, 'Blue'), streamAddress(file, 'blue'));
  t.throws(() => streamAddress(file, 'a.b'), /invalid jetstream journal prefix/);
  t.throws(() => streamAddress(file, ''), /invalid jetstream journal prefix/);
});
