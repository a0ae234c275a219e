// A tiny element builder: the whole "framework" of the dashboard (see README, "The dashboard").

/**
 * Builds an element: h('td', {class: 'x', onclick: f}, 'text', child, …). Attributes starting with `on`
 * become listeners, `dataset` an object of data-* values; null/false children are skipped.
 * @param {string} tag
 * @param {Record<string, unknown> | null} [attrs]
 * @param {...(Node | string | number | null | undefined | false)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else el.setAttribute(key, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'object' ? child : String(child));
  }
  return el;
}

/** Replaces the children of the element with id `id`. */
export function fill(id, ...children) {
  const el = document.getElementById(id);
  if (el) el.replaceChildren(...children.filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

/** A state value (string or nested object) as one line: `starting.agents`. */
export function stateText(value) {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') {
    return Object.entries(value)
      .map(([k, v]) => `${k}.${stateText(v)}`)
      .join(', ');
  }
  return String(value);
}
