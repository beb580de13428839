import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../errors/index.js';
import type { SkillStore } from './skill-store.js';

/**
 * The plugin name of materialized role skills: `claude` calls each skill `agentd:<name>`, and the
 * SDK's `skills` filter takes that name (docs/decisions/0061-role-skills-as-a-plugin.md).
 */
export const skillPluginName = 'agentd';

/** A local plugin folder holding exactly a set of stored skills. */
export interface SkillPlugin {
  /** The plugin folder, for the SDK's `plugins: [{ type: 'local', path }]`. */
  path: string;
  /** The skills' plugin-qualified names (`agentd:<name>`), for the SDK's `skills` filter. */
  skills: string[];
}

export interface SkillPluginOptions {
  store: SkillStore;
  /** `sha256:<hex>` digests; order and repeats do not matter. */
  digests: readonly string[];
  /** Where plugin folders live, one per set of digests (e.g. `<dataDir>/plugins`). */
  directory: string;
}

/**
 * Verifies every selected skill (`skill_corrupt` for a blob that no longer matches its digest,
 * `not_found` for a missing one) and returns the plugin folder that holds exactly them, making it
 * if no worker did yet. The folder is named by the digests, so it is written once and shared; it
 * appears whole (written beside it, then renamed), so concurrent workers never see half of one.
 * Two skills of the same name cannot both be given: `invalid_config`.
 */
export async function materializeSkillPlugin(options: SkillPluginOptions): Promise<SkillPlugin> {
  const { store, directory } = options;
  const digests = [...new Set(options.digests)].sort();
  // Every read verifies: a tampered blob fails here even when its plugin folder was made before.
  const names = new Map<string, string>();
  for (const digest of digests) {
    const { name } = await store.get(digest);
    const other = names.get(name);
    if (other !== undefined)
      throw new ConfigError(
        `skills ${other} and ${digest} are both named ${name}: a session can have only one`,
        {
          name,
        },
      );
    names.set(name, digest);
  }
  const path = join(directory, createHash('sha256').update(digests.join('\n')).digest('hex'));
  const skills = [...names.keys()].map((name) => `${skillPluginName}:${name}`);
  if (await isDirectory(path)) return { path, skills };

  await mkdir(directory, { recursive: true, mode: 0o700 });
  const staging = await mkdtemp(`${path}.partial-`);
  try {
    await mkdir(join(staging, '.claude-plugin'));
    const manifest = {
      name: skillPluginName,
      description: "The skills of the session's role, materialized by agentd",
      version: '1.0.0',
    };
    await writeFile(join(staging, '.claude-plugin', 'plugin.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    for (const [name, digest] of names) await store.materialize(digest, join(staging, 'skills', name));
    await chmod(staging, 0o755); // mkdtemp makes it 0700
    await rename(staging, path);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    // Another worker made the same folder meanwhile: the same content, use it.
    if (!(isCode(error, 'EEXIST') || isCode(error, 'ENOTEMPTY')) || !(await isDirectory(path))) throw error;
  }
  return { path, skills };
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isDirectory() ?? false;
}

function isCode(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === code;
}
