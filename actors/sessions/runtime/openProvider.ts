/**
 * Opens a city's runtime provider by kind: tmux (the default), subprocess, `exec:<script>` (upstream's
 * script protocol), `acp` (every session speaks the Agent Client Protocol), or the tests' in-memory fake.
 * Any but acp is wrapped so that agents with `session = "acp"` run on ACP beside the others.
 */
import { tmuxSocketFor } from '../../../schemas/sessionRuntime.ts';
import { AcpProvider, type AcpProviderOptions } from './acpProvider.ts';
import { ExecProvider } from './execProvider.ts';
import { FakeRuntimeProvider } from './fakeProvider.ts';
import type { RuntimeProvider } from './provider.ts';
import { RoutingProvider } from './routingProvider.ts';
import { SubprocessProvider } from './subprocessProvider.ts';
import { TmuxProvider } from './tmuxProvider.ts';

export type RuntimeKind = 'tmux' | 'subprocess' | 'fake' | 'acp' | `exec:${string}`;

const NAMED: readonly string[] = ['tmux', 'subprocess', 'fake', 'acp'];

/** The runtime `value` names (`[session] provider`, GC_SESSION_RUNTIME), or undefined when it names none. */
export function parseRuntimeKind(value: string): RuntimeKind | undefined {
  if (NAMED.includes(value)) return value as RuntimeKind;
  if (value.startsWith('exec:') && value.length > 'exec:'.length) return value as RuntimeKind;
  return undefined;
}

export interface RuntimePlace {
  /** The city's name. */
  city: string;
  /** GC_HOME: two supervisors with different homes never share a tmux server. */
  home: string;
}

/** `acp`: the city's `[session.acp]` settings, for every session that speaks ACP (all, or its agents'). */
export function openRuntimeProvider(
  kind: RuntimeKind,
  place: RuntimePlace,
  acp: AcpProviderOptions = {},
): RuntimeProvider {
  if (kind === 'acp') return new AcpProvider(acp);
  return new RoutingProvider(openBase(kind, place), () => new AcpProvider(acp));
}

function openBase(kind: RuntimeKind, place: RuntimePlace): RuntimeProvider {
  if (kind.startsWith('exec:')) return new ExecProvider({ script: kind.slice('exec:'.length) });
  switch (kind) {
    case 'tmux':
      return new TmuxProvider({ socket: tmuxSocketFor(place.city, place.home) });
    case 'subprocess':
      return new SubprocessProvider();
    case 'acp':
      return new AcpProvider();
    default:
      return new FakeRuntimeProvider();
  }
}
