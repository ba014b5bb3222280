// Stage the sandbox image's build context in a temp dir and hash it. The hash covers every file the
// build sees plus the base image and variant, and is stored as an image label: an image whose label
// differs was built from other inputs and is rebuilt, so a stale image is never used silently.
import { createHash } from 'node:crypto';
import { cp, copyFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IntuticError } from '@intutic/errors';

export type ImageVariant = 'base' | 'node';

export interface StagedContext {
  dir: string;
  /** Top-level entries to send (directories are sent whole). */
  entries: string[];
  hash: string;
  cleanup(): Promise<void>;
}

/** The Dockerfile and entrypoint ship beside the library; from the CLI bundle they are found in the
 * checkout it was built in. INTUTIC_SANDBOX_IMAGES_DIR overrides both. */
export function locateImagesDir(env: NodeJS.ProcessEnv = process.env): string {
  const candidates = [
    env.INTUTIC_SANDBOX_IMAGES_DIR,
    fileURLToPath(new URL('../images/', import.meta.url)),
    fileURLToPath(new URL('../../../libs/sandbox/images/', import.meta.url)),
  ].filter((c): c is string => Boolean(c));
  const found = candidates.find((dir) => existsSync(join(dir, 'Dockerfile')) && existsSync(join(dir, 'entrypoint.sh')));
  if (!found) {
    throw new IntuticError('E_IMAGE_BUILD_FAILED', 'the sandbox image files (Dockerfile, entrypoint.sh) were not found', {
      hints: [`looked in: ${candidates.join(', ')}`, 'set INTUTIC_SANDBOX_IMAGES_DIR to the directory that holds them'],
    });
  }
  return resolve(found);
}

/** What the -node image carries when the checkout has built it: the MCP proxy and the JS gates. */
function nodeBundles(imagesDir: string): { from: string; to: string }[] {
  const root = resolve(imagesDir, '../../..');
  const bundles = [
    { from: join(root, 'apps/mcp-proxy/dist/intutic-mcp-proxy.mjs'), to: 'opt/mcp-proxy/intutic-mcp-proxy.mjs' },
    { from: join(root, 'libs/gates/dist'), to: 'opt/gates' },
  ];
  return bundles.filter((b) => existsSync(b.from));
}

async function listFiles(dir: string, base = dir): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(path, base)));
    else out.push(relative(base, path));
  }
  return out.sort();
}

export async function stageBuildContext(opts: {
  variant: ImageVariant;
  baseImage: string;
  extraCaCerts: readonly string[];
  imagesDir: string;
}): Promise<StagedContext> {
  const dir = await mkdtemp(join(tmpdir(), 'intutic-sandbox-build-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    await mkdir(join(dir, 'certs'));
    await mkdir(join(dir, 'opt'));
    await copyFile(join(opts.imagesDir, 'Dockerfile'), join(dir, 'Dockerfile'));
    await copyFile(join(opts.imagesDir, 'entrypoint.sh'), join(dir, 'entrypoint.sh'));
    for (const [index, path] of opts.extraCaCerts.entries()) {
      if (!existsSync(path))
        throw new IntuticError('E_IMAGE_BUILD_FAILED', `extra CA certificate not found: ${path}`, {
          hints: ['check INTUTIC_EXTRA_CA_CERTS (colon-separated paths)'],
        });
      await copyFile(path, join(dir, 'certs', `extra-${index}.crt`));
    }
    if (opts.variant === 'node') {
      for (const bundle of nodeBundles(opts.imagesDir)) {
        await mkdir(dirname(join(dir, bundle.to)), { recursive: true });
        await cp(bundle.from, join(dir, bundle.to), { recursive: true });
      }
    }
    const hash = createHash('sha256');
    hash.update(`intutic-sandbox-context-1\0${opts.variant}\0${opts.baseImage}\0`);
    for (const file of await listFiles(dir)) {
      hash.update(`${file}\0`);
      hash.update(await readFile(join(dir, file)));
      hash.update('\0');
    }
    return { dir, entries: ['Dockerfile', 'entrypoint.sh', 'certs', 'opt'], hash: hash.digest('hex').slice(0, 32), cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
