/**
 * How the Go template subset finds its actions (machines/agents/goTemplate.ts): a trim marker is a dash
 * with a space beside it and nothing else, an action closes only at `}}` outside a string literal (escapes
 * included), a word is quoted only when it starts with a quote, the dot is not a field, and an if without
 * else renders nothing when false. Outputs are Go's; refusals are ours.
 */
import t from 'tap';
import { renderTemplate, TemplateError } from '../../machines/agents/goTemplate.ts';

const funcs = { session: (n: string) => `s-${n}` };

const refusal = (src: string): string => {
  try {
    renderTemplate(src, { A: 'x' }, funcs);
  } catch (err) {
    return err instanceof TemplateError ? err.message : `not a TemplateError: ${String(err)}`;
  }
  return 'rendered';
};

t.test('spaces beside the braces are no trim marker', async (t) => {
  t.equal(renderTemplate('a {{  .A }}', { A: 'x' }), 'a x', 'two spaces after {{');
  t.equal(renderTemplate('{{ .A  }} b', { A: 'x' }), 'x b', 'two spaces before }}');
  t.equal(renderTemplate('a b \n{{- .A }}', { A: 'x' }), 'a bx', 'a left trim takes only the trailing run');
});

t.test('an action closes at }} outside a string literal, escapes included', async (t) => {
  t.equal(renderTemplate('{{ "a\\"}}" }}', {}), 'a"}}', 'an escaped quote does not end the literal');
  t.equal(refusal('{{ .A }x }}'), '.A is not a function', 'a single } does not close it');
});

t.test('a word is a literal only when it starts with a quote', async (t) => {
  // `x""` is one word ending in a quote (the empty literal inside it keeps the action closed).
  t.equal(refusal('{{ template n"" }}'), 'expected a quoted name, got n""');
  t.equal(refusal('{{ session x"" }}'), 'unexpected x""');
  t.equal(refusal('{{ x"" }}'), 'function "x""" not defined');
});

t.test('the dot is the data, not a field named by nothing', async (t) => {
  t.equal(renderTemplate('[{{ . }}]', { '': 'field' }), '[]');
});

t.test('a false if without else renders nothing', async (t) => {
  t.equal(renderTemplate('<{{ if .B }}y{{ end }}>', {}), '<>');
});
