/**
 * The subset of Go's text/template that upstream's prompts and commands use: `{{ .Field }}` (a missing key
 * renders empty, as upstream's `missingkey=zero`), string literals, functions (`cmd`, `basename .X`,
 * `session "x"`), `{{ if .X }}…{{ else }}…{{ end }}`, `{{ define "n" }}…{{ end }}`, `{{ template "n" . }}`,
 * comments and the `{{-`/`-}}` trim markers. Anything else is a TemplateError: upstream then keeps the raw
 * text. Pure.
 */

export class TemplateError extends Error {}

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'expr'; words: string[] }
  | { kind: 'if'; cond: string[]; then: Node[]; else: Node[] }
  | { kind: 'template'; name: string };

export type TemplateFuncs = Record<string, (...args: string[]) => string>;

/** Named templates (`define`d blocks) shared by the fragments and the prompt of one render. */
export type TemplateSet = Map<string, Node[]>;

interface Token {
  text?: string;
  action?: string;
}

/** Splits a template into text and actions, applying the trim markers. */
function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const open = src.indexOf('{{', i);
    if (open < 0) {
      out.push({ text: src.slice(i) });
      break;
    }
    let text = src.slice(i, open);
    let start = open + 2;
    if (src[start] === '-' && /\s/.test(src[start + 1] ?? '')) {
      text = text.replace(/\s+$/, '');
      start += 1;
    }
    out.push({ text });
    const close = findClose(src, start);
    if (close < 0) throw new TemplateError('unclosed action');
    let end = close;
    let next = close + 2;
    if (src[close - 1] === '-' && /\s/.test(src[close - 2] ?? '')) {
      end = close - 1;
      while (next < src.length && /\s/.test(src[next]!)) next++;
    }
    out.push({ action: src.slice(start, end).trim() });
    i = next;
  }
  return out;
}

/** The `}}` closing an action, skipping string literals. */
function findClose(src: string, from: number): number {
  for (let i = from; i < src.length; i++) {
    if (src[i] === '"') {
      for (i++; i < src.length && src[i] !== '"'; i++) if (src[i] === '\\') i++;
    } else if (src[i] === '}' && src[i + 1] === '}') return i;
  }
  return -1;
}

/** An action's words: identifiers, `.Field`, `.`, and string literals (kept quoted). */
function words(action: string): string[] {
  const out: string[] = [];
  const re = /"(?:[^"\\]|\\.)*"|[^\s]+/g;
  for (const m of action.matchAll(re)) out.push(m[0]);
  return out;
}

function parse(tokens: Token[], defs: TemplateSet, pos = { i: 0 }, inBlock = false): Node[] {
  const nodes: Node[] = [];
  while (pos.i < tokens.length) {
    const tok = tokens[pos.i++]!;
    if (tok.text !== undefined) {
      if (tok.text !== '') nodes.push({ kind: 'text', text: tok.text });
      continue;
    }
    const action = tok.action!;
    if (action.startsWith('/*')) continue;
    const w = words(action);
    switch (w[0]) {
      case 'end':
      case 'else':
        if (!inBlock) throw new TemplateError(`unexpected {{${w[0]}}}`);
        pos.i--;
        return nodes;
      case 'if': {
        const then = parse(tokens, defs, pos, true);
        let otherwise: Node[] = [];
        if (tokens[pos.i]?.action === 'else') {
          pos.i++;
          otherwise = parse(tokens, defs, pos, true);
        }
        expectEnd(tokens, pos);
        nodes.push({ kind: 'if', cond: w.slice(1), then, else: otherwise });
        break;
      }
      case 'define': {
        const body = parse(tokens, defs, pos, true);
        expectEnd(tokens, pos);
        defs.set(literal(w[1]), body);
        break;
      }
      case 'template':
        nodes.push({ kind: 'template', name: literal(w[1]) });
        break;
      default:
        nodes.push({ kind: 'expr', words: w });
    }
  }
  if (inBlock) throw new TemplateError('missing {{end}}');
  return nodes;
}

function expectEnd(tokens: Token[], pos: { i: number }): void {
  if (tokens[pos.i]?.action !== 'end') throw new TemplateError('missing {{end}}');
  pos.i++;
}

function literal(word: string | undefined): string {
  if (!word?.startsWith('"')) throw new TemplateError(`expected a quoted name, got ${word ?? 'nothing'}`);
  return JSON.parse(word) as string;
}

/**
 * Parses `src` into `set` (its `define`d blocks join the set) and returns its body. @throws TemplateError.
 */
export function parseTemplate(src: string, set: TemplateSet): Node[] {
  return parse(tokenize(src), set);
}

/** Renders a parsed body with `data` and `funcs`. @throws TemplateError for an unknown function or template. */
export function execTemplate(
  body: Node[],
  set: TemplateSet,
  data: Record<string, string>,
  funcs: TemplateFuncs = {},
  depth = 0,
): string {
  if (depth > 20) throw new TemplateError('templates nest too deep');
  const value = (w: string): string => {
    if (w.startsWith('"')) return JSON.parse(w) as string;
    if (w === '.') return '';
    if (w.startsWith('.')) return data[w.slice(1)] ?? '';
    throw new TemplateError(`unexpected ${w}`);
  };
  const evaluate = (w: string[]): string => {
    if (w.length === 0) throw new TemplateError('empty action');
    const head = w[0]!;
    if (head.startsWith('.') || head.startsWith('"')) {
      if (w.length > 1) throw new TemplateError(`${head} is not a function`);
      return value(head);
    }
    const fn = funcs[head];
    if (!fn) throw new TemplateError(`function "${head}" not defined`);
    return fn(...w.slice(1).map(value));
  };
  let out = '';
  for (const n of body) {
    if (n.kind === 'text') out += n.text;
    else if (n.kind === 'expr') out += evaluate(n.words);
    else if (n.kind === 'if')
      out += execTemplate(evaluate(n.cond) !== '' ? n.then : n.else, set, data, funcs, depth + 1);
    else {
      const def = set.get(n.name);
      if (!def) throw new TemplateError(`no such template "${n.name}"`);
      out += execTemplate(def, set, data, funcs, depth + 1);
    }
  }
  return out;
}

/** Renders `src` alone. @throws TemplateError. */
export function renderTemplate(src: string, data: Record<string, string>, funcs: TemplateFuncs = {}): string {
  const set: TemplateSet = new Map();
  return execTemplate(parseTemplate(src, set), set, data, funcs);
}

/** `src` rendered, or `src` itself when it has no action or does not render (upstream keeps the raw text). */
export function expandOrKeep(src: string, data: Record<string, string>): string {
  if (!src.includes('{{')) return src;
  try {
    return renderTemplate(src, data);
  } catch {
    return src;
  }
}
