/**
 * The Go-template subset upstream's prompts and commands use: fields (missing ones empty), string
 * literals, functions, if/else, define/template, comments and trim markers; anything else refused (the
 * caller keeps the raw text).
 */
import t from 'tap';
import { expandOrKeep, renderTemplate } from '../../machines/agents/goTemplate.ts';

const funcs = { cmd: () => 'gc', basename: (s: string) => s.slice(s.lastIndexOf('/') + 1) };

t.test('fields, literals, functions and trim markers', async (t) => {
  t.equal(renderTemplate('{{ .A }}/{{.B}}', { A: 'x' }), 'x/', 'a missing key renders empty');
  t.equal(renderTemplate('nudge {{"{{requester}}"}}/', {}), 'nudge {{requester}}/');
  t.equal(renderTemplate('{{ basename .P }} {{ cmd }}', { P: 'rig/a.polecat-2' }, funcs), 'a.polecat-2 gc');
  t.equal(renderTemplate('a  {{- .A -}}  b{{/* gone */}}', { A: 'x' }), 'axb');
});

t.test('if/else and define/template', async (t) => {
  const src = '{{ define "g" }}hi {{ .N }}{{ end }}{{ if .N }}{{ template "g" . }}{{ else }}none{{ end }}';
  t.equal(renderTemplate(src, { N: 'ann' }), 'hi ann');
  t.equal(renderTemplate(src, {}), 'none');
});

t.test('what it does not know is an error; expandOrKeep keeps the raw text then', async (t) => {
  t.throws(() => renderTemplate('{{ range .X }}{{ end }}', {}), /unexpected \{\{end\}\}/);
  t.throws(() => renderTemplate('{{ template "missing" . }}', {}), /no such template "missing"/);
  t.throws(() => renderTemplate('{{ if .X }}open', {}), /missing \{\{end\}\}/);
  t.throws(() => renderTemplate('{{ .A', {}), /unclosed action/);
  t.equal(expandOrKeep('{{ nope }} {{.ConfigDir}}', { ConfigDir: '/p' }), '{{ nope }} {{.ConfigDir}}');
  t.equal(expandOrKeep('{{.ConfigDir}}/run.sh', { ConfigDir: '/p' }), '/p/run.sh');
});
