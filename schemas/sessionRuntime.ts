/**
 * Facts about the session runtime that the supervisor and the CLI must compute alike (the CLI's `attach`
 * finds the city's tmux server from them). Pure: no imports, so the CLI loads nothing for it.
 */

/**
 * The private tmux socket name (`tmux -L <name>`) of a city's sessions. The hash of GC_HOME keeps two
 * supervisors with different homes on one machine apart even for cities of the same name; the name keeps
 * to characters tmux and a file name take as they are, and is short enough for a unix socket path.
 */
export function tmuxSocketFor(city: string, home: string): string {
  const safe = city.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40) || '_';
  return `gc-${safe}-${fnv1a32(home)}`;
}

// FNV-1a (32 bit), as 8 hex digits: stable across processes and Node versions, no crypto import needed.
function fnv1a32(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
