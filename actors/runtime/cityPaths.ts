import { join } from 'node:path';

/** A city's `city.toml`: every family that reads its own table of it finds the file here. */
export const cityTomlPath = (dir: string): string => join(dir, 'city.toml');
