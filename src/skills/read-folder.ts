import { constants, type Stats } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SkillInvalidError, SkillLinkError, SkillSpecialFileError } from '../errors/index.js';
import type { SkillCollector } from './skill-collector.js';

/**
 * Walks a skill folder without following links. A symbolic link anywhere is refused, even one
 * that stays inside: a skill is its bytes, and a link's meaning depends on where it lands.
 */
export async function readSkillFolder(root: string, collector: SkillCollector): Promise<void> {
  await walk({ root, relative: '', collector });
}

async function walk(options: { root: string; relative: string; collector: SkillCollector }): Promise<void> {
  const { root, relative, collector } = options;
  const names = (await readdir(join(root, relative))).sort();
  for (const name of names) {
    const path = relative === '' ? name : `${relative}/${name}`;
    const absolute = join(root, path);
    collector.countEntry();
    const stats = await lstat(absolute);
    if (stats.isSymbolicLink()) throw new SkillLinkError(`Skill entry ${path} is a symbolic link`, { path });
    if (stats.isDirectory()) {
      collector.addDirectory(path);
      await walk({ root, relative: path, collector });
    } else if (stats.isFile()) {
      const content = await readBounded({ absolute, stats, collector, path });
      collector.addFile({ rawPath: path, executable: (stats.mode & 0o111) !== 0, content });
    } else {
      throw new SkillSpecialFileError(`Skill entry ${path} is not a regular file or directory`, { path });
    }
  }
}

/**
 * Reads at most what the limit still allows. Opened without following links and without blocking
 * (a FIFO swapped in after `lstat` must not hang us), then checked to be the file `lstat` saw.
 */
async function readBounded(options: {
  absolute: string;
  stats: Stats;
  collector: SkillCollector;
  path: string;
}): Promise<Buffer> {
  const { absolute, stats, collector, path } = options;
  const handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const opened = await handle.stat();
    if (!opened.isFile() || opened.ino !== stats.ino || opened.dev !== stats.dev) {
      throw new SkillInvalidError(`Skill entry ${path} changed while it was read`, { path });
    }
    collector.countBytes(opened.size);
    const content = Buffer.alloc(opened.size);
    let filled = 0;
    while (filled < content.length) {
      const { bytesRead } = await handle.read(content, filled, content.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const { bytesRead: extra } = await handle.read(Buffer.alloc(1), 0, 1, filled);
    if (extra > 0 || filled !== content.length) {
      throw new SkillInvalidError(`Skill entry ${path} changed while it was read`, { path });
    }
    return content;
  } finally {
    await handle.close();
  }
}
