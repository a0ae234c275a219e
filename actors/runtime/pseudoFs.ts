import { statfs } from 'node:fs/promises';

/** Where Linux mounts its kernel pseudo-filesystems (devtmpfs reports tmpfs's type, so /dev goes by path). */
const PSEUDO_ROOTS = ['/proc', '/sys', '/dev'] as const;

/**
 * `statfs` f_type magic numbers (linux/magic.h) of file systems that are kernel interfaces, not storage:
 * directories there cannot hold a city, and `mkdir -p` under /proc never returns.
 */
const PSEUDO_FS_TYPES: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x6165676c, 'pstore'],
  [0xcafe4a11, 'bpf'],
  [0x62656570, 'configfs'],
  [0x1cd1, 'devpts'],
  [0x19800202, 'mqueue'],
  [0x42494e4d, 'binfmt_misc'],
  [0xde5e81e4, 'efivarfs'],
  [0x65735543, 'fusectl'],
  [0xf97cff8c, 'selinuxfs'],
  [0x43415d53, 'smackfs'],
  [0x6e736673, 'nsfs'],
  [0x958458f6, 'hugetlbfs'],
  [0x67596969, 'rpc_pipefs'],
]);

/** A path's file system type (statfs f_type). A seam: tests pass a probe that reports any type. */
export type FsTypeProbe = (path: string) => Promise<number>;

export const statfsType: FsTypeProbe = async (path) => (await statfs(path)).type;

/** The pseudo-filesystem root `path` lies under (lexically), or undefined. Pure. */
export function pseudoRootOf(path: string): string | undefined {
  return PSEUDO_ROOTS.find((root) => path === root || path.startsWith(`${root}/`));
}

/**
 * The name of the pseudo-filesystem `existing` (an existing directory) is on, or undefined when it is
 * ordinary storage or its type cannot be read (then the scaffold's own errors speak). Effects: statfs.
 */
export async function pseudoFsOf(
  existing: string,
  probe: FsTypeProbe = statfsType,
): Promise<string | undefined> {
  try {
    return PSEUDO_FS_TYPES.get(await probe(existing));
  } catch {
    return undefined;
  }
}
