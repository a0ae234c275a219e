import t from 'tap';
import { parseDuration } from '../../cli/duration.ts';

t.test('parses Go-style durations into milliseconds', async (t) => {
  const cases: [string, number][] = [
    ['0', 0],
    ['30s', 30_000],
    ['1h30m', 5_400_000],
    ['1.5m', 90_000],
    ['250ms', 250],
    ['2h', 7_200_000],
    ['1m0.5s', 60_500],
    ['.5s', 500],
    ['1500us', 1.5],
  ];
  for (const [text, ms] of cases) t.equal(parseDuration(text), ms, text);
});

t.test('refuses what Go would refuse, and signs', async (t) => {
  t.throws(() => parseDuration('5'), { message: 'missing unit in duration "5"' });
  for (const bad of ['abc', '5 m', '1d', '-5m', '+5m', 'm', '5m3']) {
    t.throws(() => parseDuration(bad), Error, bad);
  }
  t.throws(() => parseDuration(''), { message: 'empty duration' });
});
