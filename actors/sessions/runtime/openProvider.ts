/** Opens a city's runtime provider by kind: tmux (the default), subprocess, or the tests' in-memory fake. */
import { tmuxSocketFor } from '../../../schemas/sessionRuntime.ts';
import { FakeRuntimeProvider } from './fakeProvider.ts';
import type { RuntimeProvider } from './provider.ts';
import { SubprocessProvider } from './subprocessProvider.ts';
import { TmuxProvider } from './tmuxProvider.ts';

export type RuntimeKind = 'tmux' | 'subprocess' | 'fake';

export interface RuntimePlace {
  /** The city's name. */
  city: string;
  /** GC_HOME: two supervisors with different homes never share a tmux server. */
  home: string;
}

export function openRuntimeProvider(kind: RuntimeKind, place: RuntimePlace): RuntimeProvider {
  switch (kind) {
    case 'tmux':
      return new TmuxProvider({ socket: tmuxSocketFor(place.city, place.home) });
    case 'subprocess':
      return new SubprocessProvider();
    case 'fake':
      return new FakeRuntimeProvider();
  }
}
