import t from 'tap';
import { parseCursor as serverParse } from '../../actors/runtime/cursor.ts';
import { CursorPosition } from '../../cli/cursor.ts';
import { planEvents, type EventsFlags } from '../../cli/events/plan.ts';

/**
 * The CLI checks `--after-cursor` and places stream frames with the same composite-cursor codec the server
 * resumes from: a cursor the CLI accepts is one the server accepts, with the same positions, and a cursor
 * the server would answer 400 for is refused by the CLI before any request.
 */

const base: EventsFlags = { watch: false, follow: false, seq: false, timeout: '30s' };

/** Non-blank texts only: a blank `--after-cursor` means "none" to the CLI and "absent" to the server. */
const CORPUS = [
  '0',
  'alpha:0',
  '__supervisor__:42,my-city:17',
  'ns:city:7',
  'a:007',
  `a:${Number.MAX_SAFE_INTEGER}`,
  'a:99999999999999999',
  'a:1,a:2',
  'a:1,b:2,a:1',
  'garbage',
  'a:',
  ':3',
  'a:-1',
  'a:1x',
  'a:1.5',
  'a:1e3',
  'a:0x10',
  'a:+1',
  'a:1,,b:2',
  'a:1,',
  ',a:1',
  '00',
];

/** What the server makes of a cursor: its positions, or the 400 it answers. */
function server(text: string): Array<[string, number]> | 'refused' {
  try {
    return [...serverParse(text, 'after_cursor')];
  } catch {
    return 'refused';
  }
}

t.test('--after-cursor is accepted exactly when the server accepts the cursor', async (t) => {
  for (const text of CORPUS) {
    let cli: 'accepted' | 'refused' = 'accepted';
    try {
      planEvents({ ...base, 'after-cursor': text }, 0);
    } catch (err) {
      t.equal(
        (err as Error).message,
        `invalid --after-cursor "${text}": expected name:seq pairs joined by ","`,
        `${text}: the CLI's own message`,
      );
      cli = 'refused';
    }
    t.equal(cli, server(text) === 'refused' ? 'refused' : 'accepted', text);
  }
});

t.test('a cursor position reads frame ids with the server codec', async (t) => {
  for (const text of CORPUS) {
    const expected = server(text);
    if (expected === 'refused') {
      t.throws(() => new CursorPosition(text), `${text} refused`);
      continue;
    }
    // Every stream the cursor names is at its seq: a frame id one past any of them is new, the same id is not.
    const p = new CursorPosition(text);
    t.notOk(p.advance(text), `${text}: the same cursor is a repeat`);
    for (const [name, seq] of expected) {
      t.ok(new CursorPosition(text).advance(`${name}:${seq + 1}`), `${text}: ${name} moved on`);
    }
  }
});
