/** Bead ids (machines/beads/ids.ts): the city's prefix, and reading the number back only from its own ids. */
import t from 'tap';
import { formatId, idNumber, idPrefixFor } from '../../machines/beads/ids.ts';

t.test('the prefix: the first two letters or digits of the city name, lowercased, else gc', async (t) => {
  t.equal(idPrefixFor('Gas City'), 'ga');
  t.equal(idPrefixFor('9-lives'), '9l');
  t.equal(idPrefixFor('x'), 'x');
  t.equal(idPrefixFor('--'), 'gc');
  t.equal(idPrefixFor('Ünïcode'), 'nc', 'letters outside a-z are not kept');
});

t.test('the number of an id of this prefix only: 1 and up, no leading zero, at most 15 digits', async (t) => {
  t.equal(formatId('ga', 12), 'ga-12');
  t.equal(idNumber('ga-12', 'ga'), 12);
  t.equal(idNumber('ga-999999999999999', 'ga'), 999_999_999_999_999);
  for (const id of [
    'ga-0',
    'ga-012',
    'ga-1000000000000000',
    'ga-',
    'ga12',
    'ga_12',
    'gb-12',
    'gax-12',
    'ga-1a',
    'ga--1',
  ])
    t.equal(idNumber(id, 'ga'), undefined, id);
});
