/**
 * The edges of the Go text/template subset (machines/agents/goTemplate.ts): trim markers and what they eat,
 * `}}` and escapes inside string literals, functions and their arguments, nesting, and each refusal by its
 * message. Outputs are Go's for the same template and data; the refusals are ours (upstream then keeps the
 * raw text, which expandOrKeep does).
 */
import t from 'tap';
import {
  execTemplate,
  expandOrKeep,
  parseTemplate,
  renderTemplate,
  TemplateError,
  type TemplateSet,
} from '../../machines/agents/goTemplate.ts';

const funcs = {
  session: (n: string) => `s-${n}`,
  cmd: () => 'gc',
  pair: (a: string, b: string) => `${a}+${b}`,
};

const renders: Array<[string, Record<string, string>, string, string]> = [
  ['a \n\t {{- .A }}', { A: 'x' }, 'ax', '{{- eats every whitespace before it, newlines too'],
  ['{{ .A -}} \n\n b', { A: 'x' }, 'xb', '-}} eats every whitespace after it'],
  ['a {{- .A }} b', { A: 'x' }, 'ax b', 'a left trim leaves the right side'],
  ['a {{ .A -}} b', { A: 'x' }, 'a xb', 'a right trim leaves the left side'],
  ['{{-  .A  -}}', { A: 'x' }, 'x', 'trim markers with more than one space'],
  ['a-{{ .A }}-b', { A: 'x' }, 'a-x-b', 'a dash in the text is no trim marker'],
  ['{{ "a}}b" }}', {}, 'a}}b', '}} inside a string literal does not close the action'],
  ['{{ "say \\"hi\\"" }}', {}, 'say "hi"', 'escaped quotes stay in the literal'],
  ['{{ "a\\\\" }}', {}, 'a\\', 'an escaped backslash before the closing quote'],
  ['{{ "\\u0041" }}', {}, 'A', 'a literal is read as Go reads it'],
  ['a {{- /* c */ -}} b', {}, 'ab', 'a trimmed comment'],
  ['plain', {}, 'plain', 'text alone'],
  ['', {}, '', 'nothing'],
  ['[{{ . }}]', {}, '[]', 'the dot renders empty'],
  ['{{ session "mayor" }}', {}, 's-mayor', 'a function with a literal'],
  ['{{ session .N }}', { N: 'w' }, 's-w', 'a function with a field'],
  ['{{ pair "a" .B }}', { B: 'b' }, 'a+b', 'arguments in order'],
  ['{{ if "" }}y{{ else }}n{{ end }}', {}, 'n', 'an empty string is false'],
  ['{{ if cmd }}y{{ end }}', {}, 'y', 'a function as the condition'],
  ['{{ if .A }}{{ if .B }}ab{{ else }}a{{ end }}{{ else }}-{{ end }}', { A: '1' }, 'a', 'nested ifs'],
  ['a{{ define "n" }}X{{ end }}b{{ template "n" . }}', {}, 'abX', 'a define renders only where used'],
];

const refusals: Array<[string, string]> = [
  ['{{ "abc }}', 'unclosed action'],
  ['x{{/* unclosed comment', 'unclosed action'],
  ['{{ .A }}{{', 'unclosed action'],
  ['{{ .A .B }}', '.A is not a function'],
  ['{{ "x" .A }}', '"x" is not a function'],
  ['{{ session foo }}', 'unexpected foo'],
  ['{{ }}', 'empty action'],
  ['{{ if }}y{{ end }}', 'empty action'],
  ['{{ nope }}', 'function "nope" not defined'],
  ['a {{-.A}}', 'function "-.A" not defined'],
  ['{{ else }}', 'unexpected {{else}}'],
  ['{{ end }}', 'unexpected {{end}}'],
  ['{{ if .A }}x{{ end }}{{ else }}', 'unexpected {{else}}'],
  ['{{ define "x" }}abc', 'missing {{end}}'],
  ['{{ if .A }}a{{ else if .B }}b{{ end }}', 'missing {{end}}'],
  ['{{ define x }}{{ end }}', 'expected a quoted name, got x'],
  ['{{ template }}', 'expected a quoted name, got nothing'],
  ['{{ define "r" }}{{ template "r" . }}{{ end }}{{ template "r" . }}', 'templates nest too deep'],
];

t.test('renders as Go does', async (t) => {
  for (const [src, data, want, what] of renders) t.equal(renderTemplate(src, data, funcs), want, what);
});

t.test('refuses what it does not know, each with its reason', async (t) => {
  for (const [src, message] of refusals) {
    let thrown: unknown;
    try {
      renderTemplate(src, { A: '1' }, funcs);
    } catch (err) {
      thrown = err;
    }
    t.ok(thrown instanceof TemplateError, `${JSON.stringify(src)} is a TemplateError`);
    t.equal((thrown as Error | undefined)?.message, message, JSON.stringify(src));
  }
});

t.test('nesting: twenty levels render, the twenty-first is refused', async (t) => {
  const deep = (n: number) => '{{ if "1" }}'.repeat(n) + 'in' + '{{ end }}'.repeat(n);
  t.equal(renderTemplate(deep(20), {}), 'in');
  t.throws(() => renderTemplate(deep(21), {}), { message: 'templates nest too deep' });
});

t.test('one set shares the defines of fragments with the prompt rendered after them', async (t) => {
  const set: TemplateSet = new Map();
  t.same(parseTemplate('{{ define "sig" }}-- {{ .Name }}{{ end }}', set), [], 'a fragment of defines only');
  const body = parseTemplate('hello{{ template "sig" . }}', set);
  t.equal(execTemplate(body, set, { Name: 'ann' }), 'hello-- ann');
  t.throws(() => execTemplate(body, new Map(), { Name: 'ann' }), { message: 'no such template "sig"' });
  t.equal(
    execTemplate(parseTemplate('{{ cmd }}', set), set, {}, funcs),
    'gc',
    'functions are passed through',
  );
});

t.test('expandOrKeep: the raw text when there is no action or it does not render', async (t) => {
  t.equal(expandOrKeep('no actions } here', { A: 'x' }), 'no actions } here');
  t.equal(expandOrKeep('{{ .A }}!', { A: 'x' }), 'x!');
  t.equal(expandOrKeep('{{ if .A }}open', { A: 'x' }), '{{ if .A }}open');
});
