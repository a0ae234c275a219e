/**
 * The settings merge at its edges (machines/sessions/settingsMerge.ts): which files merge, Go's
 * MarshalIndent text of every kind of value, `null` documents, hook entries without an identity, entries
 * of the same identity within one side, and identities that are not strings. Expected texts are what
 * Go's encoding/json writes for the same document.
 */
import t from 'tap';
import { isMergeableSettings, mergeSettingsJson } from '../../machines/sessions/settingsMerge.ts';

const hooksOf = (text: string | undefined) =>
  (JSON.parse(text!) as { hooks: Record<string, unknown[]> }).hooks;
const merge = (base: unknown, over: unknown) => mergeSettingsJson(JSON.stringify(base), JSON.stringify(over));

t.test('the merged files are upstream’s five, however the path is written', async (t) => {
  for (const rel of [
    '.claude/settings.json',
    '.gemini/settings.json',
    '.codex/hooks.json',
    '.cursor/hooks.json',
    '.github/hooks/gascity.json',
  ])
    t.equal(isMergeableSettings(rel), true, rel);
  t.equal(isMergeableSettings('.claude\\settings.json'), true, 'a Windows separator');
  t.equal(isMergeableSettings('/.claude//settings.json'), true, 'doubled and leading separators');
  t.equal(isMergeableSettings('.claude/other.json'), false);
  t.equal(isMergeableSettings(''), false);
});

t.test(
  'Go’s MarshalIndent text: sorted keys, two spaces, empty containers inline, HTML escaped',
  async (t) => {
    const doc = { b: [1, 'x<y', { z: true, a: null }], a: {}, c: [], d: { e: [[]], f: 2.5 }, 'k&': 'v>' };
    const want = [
      '{',
      '  "a": {},',
      '  "b": [',
      '    1,',
      '    "x\\u003cy",',
      '    {',
      '      "a": null,',
      '      "z": true',
      '    }',
      '  ],',
      '  "c": [],',
      '  "d": {',
      '    "e": [',
      '      []',
      '    ],',
      '    "f": 2.5',
      '  },',
      '  "k\\u0026": "v\\u003e"',
      '}',
      '',
    ].join('\n');
    t.equal(merge({}, doc), want);
  },
);

t.test('a null document merges as an empty one', async (t) => {
  t.equal(mergeSettingsJson('null', '{"a":1}'), '{\n  "a": 1\n}\n');
  t.equal(mergeSettingsJson('{"a":1}', 'null'), '{\n  "a": 1\n}\n');
  t.equal(mergeSettingsJson('{"a":1}', '{"b":'), undefined, 'an overlay that is not JSON');
});

t.test('hook entries without an identity are appended, whatever they are', async (t) => {
  const merged = merge(
    { hooks: { Stop: [null, 'a', { matcher: 5, v: 1 }] } },
    { hooks: { Stop: [null, 'a', { matcher: 5, v: 2 }] } },
  );
  t.same(hooksOf(merged).Stop, [null, 'a', { matcher: 5, v: 1 }, null, 'a', { matcher: 5, v: 2 }]);
});

t.test('identity by command and by bash replaces in place', async (t) => {
  const merged = merge(
    {
      hooks: {
        Stop: [
          { command: 'x', v: 1 },
          { bash: 'b', v: 1 },
          { matcher: 'M', v: 1 },
        ],
      },
    },
    {
      hooks: {
        Stop: [
          { bash: 'b', v: 2 },
          { command: 'x', v: 2 },
        ],
      },
    },
  );
  t.same(hooksOf(merged).Stop, [
    { command: 'x', v: 2 },
    { bash: 'b', v: 2 },
    { matcher: 'M', v: 1 },
  ]);
  t.same(
    hooksOf(merge({ hooks: { S: [{ matcher: 'x', v: 1 }] } }, { hooks: { S: [{ command: 'x', v: 2 }] } })).S,
    [
      { matcher: 'x', v: 1 },
      { command: 'x', v: 2 },
    ],
    'a matcher and a command of the same text are different identities',
  );
});

t.test('two overlay entries of one new identity: the second replaces the first', async (t) => {
  const merged = merge(
    { hooks: { Stop: [{ matcher: 'A' }] } },
    { hooks: { Stop: [{ matcher: 'N', v: 1 }, { matcher: 'N', v: 2 }, { matcher: 'O' }] } },
  );
  t.same(hooksOf(merged).Stop, [{ matcher: 'A' }, { matcher: 'N', v: 2 }, { matcher: 'O' }]);
});
