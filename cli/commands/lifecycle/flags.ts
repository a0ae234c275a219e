import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';

/** The `[path]` argument of the city lifecycle commands. */
export const pathArg = {
  path: Args.string({ description: 'the city directory (default: --city, then the city containing cwd)' }),
};

/** The flags every city lifecycle command takes. */
export const lifecycleFlags = {
  api: Flags.string({ description: 'supervisor API base URL (default: GC_API, then auto-discovery)' }),
  city: Flags.string({ description: 'the city directory, when [path] is not given' }),
};
