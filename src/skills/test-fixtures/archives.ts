/**
 * Builders for test archives, byte by byte, so a test can make what no honest tool makes: entries
 * that climb out, links, devices, a zip entry that lies about its size.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';
import { Header, type HeaderData } from 'tar';

export interface TarEntrySpec {
  path: string;
  type?: HeaderData['type'];
  content?: string | Buffer;
  mode?: number;
  linkpath?: string;
  mtime?: Date;
}

export function tarArchive(entries: TarEntrySpec[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const content = Buffer.from(entry.content ?? '');
    const header = Buffer.alloc(512);
    new Header({
      path: entry.path,
      type: entry.type ?? 'File',
      size: content.length,
      mode: entry.mode ?? 0o644,
      linkpath: entry.linkpath,
      mtime: entry.mtime ?? new Date('2020-01-01T00:00:00Z'),
    }).encode(header, 0);
    blocks.push(header, content, Buffer.alloc((512 - (content.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

export function tarGz(entries: TarEntrySpec[]): Buffer {
  return gzipSync(tarArchive(entries));
}

export interface ZipEntrySpec {
  path: string;
  content?: string | Buffer;
  /** Unix mode including the file type bits, e.g. 0o100644, 0o120777 for a symlink. */
  mode?: number;
  /** A lie to put in the headers instead of the real uncompressed size. */
  declaredSize?: number;
  /** Deflate (the default) or store. */
  deflate?: boolean;
}

export function zipArchive(entries: ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const content = Buffer.from(entry.content ?? '');
    const deflate = entry.deflate ?? true;
    const data = deflate ? deflateRawSync(content) : content;
    const name = Buffer.from(entry.path, 'utf8');
    const size = entry.declaredSize ?? content.length;
    const crc = crc32(content);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6); // names are UTF-8
    local.writeUInt16LE(deflate ? 8 : 0, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x800, 8);
    central.writeUInt16LE(deflate ? 8 : 0, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((entry.mode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const centralDirectory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralDirectory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, centralDirectory, end]);
}

export interface FolderFileSpec {
  content: string | Buffer;
  mode?: number;
}

/** Writes files (path → content) under `root`, creating folders as needed. */
export async function writeFolder(
  root: string,
  files: Record<string, string | Buffer | FolderFileSpec>,
): Promise<void> {
  for (const [path, spec] of Object.entries(files)) {
    const file = typeof spec === 'string' || Buffer.isBuffer(spec) ? { content: spec } : spec;
    const absolute = join(root, path);
    await mkdir(dirname(absolute), { recursive: true });
    await writeFile(absolute, file.content);
    await chmod(absolute, file.mode ?? 0o644);
  }
}

export const skillMarkdown = [
  '---',
  'name: pdf-tools',
  'description: Fill and merge PDF forms. Use when the user mentions PDFs.',
  '---',
  '',
  '# PDF tools',
  '',
  'Run `scripts/merge.sh` to merge.',
  '',
].join('\n');
