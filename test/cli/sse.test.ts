import t from 'tap';
import { SseParser, type SseFrame } from '../../cli/sse.ts';

/** Feeds the text one chunk size at a time and collects every frame. */
function parse(text: string, chunk = text.length || 1): SseFrame[] {
  const p = new SseParser();
  const out: SseFrame[] = [];
  for (let i = 0; i < text.length; i += chunk) out.push(...p.push(text.slice(i, i + chunk)));
  return out;
}

const stream =
  'id: 21\nevent: event\ndata: {"seq":21,"type":"mail.sent"}\n\n' +
  'event: heartbeat\ndata: {"timestamp":"2026-06-21T10:00:15Z"}\n\n' +
  'id: __supervisor__:3,alpha:9\nevent: tagged_event\ndata: {"seq":9,"city":"alpha"}\n\n';

const expected: SseFrame[] = [
  { id: '21', event: 'event', data: '{"seq":21,"type":"mail.sent"}' },
  { event: 'heartbeat', data: '{"timestamp":"2026-06-21T10:00:15Z"}' },
  { id: '__supervisor__:3,alpha:9', event: 'tagged_event', data: '{"seq":9,"city":"alpha"}' },
];

t.test('parses typed frames; a heartbeat has no id, and ids do not carry over', async (t) => {
  t.same(parse(stream), expected);
});

t.test('gives the same frames whatever the chunking, down to one character', async (t) => {
  for (const size of [1, 2, 3, 7, 64]) t.same(parse(stream, size), expected, `chunks of ${size}`);
});

t.test('accepts CRLF and CR line ends, including a CRLF split across chunks', async (t) => {
  const crlf = stream.replaceAll('\n', '\r\n');
  for (const size of [1, 2, 5, crlf.length]) t.same(parse(crlf, size), expected, `CRLF, chunks of ${size}`);
  t.same(parse(stream.replaceAll('\n', '\r'), 1), expected, 'CR only');
});

t.test('ignores comments and retry, joins multi-line data, defaults the event name', async (t) => {
  t.same(parse(': keepalive\n\nretry: 5000\ndata: a\ndata: b\n\n'), [{ event: 'message', data: 'a\nb' }]);
  t.same(
    parse('data:no-space\n\n'),
    [{ event: 'message', data: 'no-space' }],
    'the space after : is optional',
  );
  t.same(parse('data:  two\n\n'), [{ event: 'message', data: ' two' }], 'only one leading space is removed');
});

t.test('a frame without data is not dispatched, and an unterminated frame is held back', async (t) => {
  t.same(parse('id: 1\nevent: event\n\n'), []);
  t.same(parse('event: event\ndata: {}\n'), [], 'no blank line yet');
});
