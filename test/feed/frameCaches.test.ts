import t from 'tap';
import { streamRegistry } from '../../http/sse/registry.ts';
import { logOf, stored } from '../helpers/feed.ts';

// Frame caches are the app's state: streams of one app share renders, another app renders its own.

t.test('each app has its own frame caches, shared by its streams', async (t) => {
  const journal = logOf('c', ['a']);
  const event = stored(1, 'a');
  let renders = 0;
  const render = (): string => `frame ${++renders}`;
  const one = streamRegistry({});
  const two = streamRegistry({});
  t.not(one.taggedFrames, two.taggedFrames);
  t.not(one.cityFrames, one.taggedFrames, 'city and tagged frames are cached apart');
  t.equal(one.taggedFrames.data(journal, 'c', event, render), 'frame 1');
  t.equal(one.taggedFrames.data(journal, 'c', event, render), 'frame 1', 'a second stream reuses it');
  t.equal(two.taggedFrames.data(journal, 'c', event, render), 'frame 2', 'another app renders its own');
});
