import { parseArgs, type FlagSpec, type Parsed } from '../bd/args.ts';

/** bd's flag parser for a `gc` command (an unsupported flag is named as gc's). Pure. */
export const parseGcArgs = (argv: readonly string[], spec: FlagSpec, command: string): Parsed =>
  parseArgs(argv, spec, command, 'gc');
