import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
import {
  AgentdError,
  SkillArchiveError,
  SkillLinkError,
  SkillSpecialFileError,
  SkillTooLargeError,
} from '../errors/index.js';
import type { SkillCollector, SkillLimits } from './skill-collector.js';
import { canonicalEntryPath } from './skill-path.js';

/**
 * Tar bytes allowed per entry beyond its content: its header, a pax header with a path of up to
 * 1 KiB and padding fit in 8 KiB. With the end-of-archive record this caps the uncompressed
 * stream, so a gzip bomb of padding or headers is cut off however well it compresses.
 */
const overheadPerEntry = 8 * 1024;
const overheadPerArchive = 64 * 1024;

/**
 * Reads a tar (gzipped or not) entry by entry into the collector. Only regular files and
 * directories pass; links, devices and anything else are refused at their header, before their
 * bytes; file bytes are counted as they stream.
 */
export async function readSkillTar(options: {
  input: Readable;
  gzipped: boolean;
  collector: SkillCollector;
  limits: SkillLimits;
}): Promise<void> {
  const { input, gzipped, collector, limits } = options;
  let refusal: unknown;
  let failure: unknown;
  const parser = new Parser({
    strict: true,
    brotli: false,
    zstd: false,
    onReadEntry: (entry) => {
      if (refusal !== undefined) {
        entry.resume();
        return;
      }
      try {
        readEntry({ entry, collector, refuse });
      } catch (error) {
        refuse(error);
        entry.resume();
      }
    },
  });
  function refuse(error: unknown): void {
    refusal ??= error;
  }
  parser.on('error', (error: unknown) => {
    failure ??= error;
  });

  const maxTarBytes = limits.maxBytes + limits.maxFiles * overheadPerEntry + overheadPerArchive;
  const stream = gzipped ? input.pipe(createGunzip()) : input;
  // pipe() does not pass a read error on; without this the loop below would wait forever.
  if (stream !== input) input.once('error', (error) => stream.destroy(error));
  let tarBytes = 0;
  try {
    for await (const chunk of stream) {
      if (!Buffer.isBuffer(chunk)) throw new SkillArchiveError('Archive stream yielded a non-binary chunk');
      tarBytes += chunk.length;
      if (tarBytes > maxTarBytes) {
        refuse(new SkillTooLargeError(`Archive unpacks to more than ${maxTarBytes} bytes`, { maxTarBytes }));
      }
      if (refusal !== undefined || failure !== undefined) break;
      parser.write(chunk);
    }
  } catch (error) {
    throw (
      refusal ??
      new SkillArchiveError('Archive cannot be read (damaged gzip stream?)', { cause: String(error) })
    );
  } finally {
    input.destroy();
    stream.destroy();
  }
  if (refusal === undefined && failure === undefined) {
    await new Promise<void>((resolve) => {
      parser.once('end', resolve);
      parser.once('error', () => resolve());
      parser.end();
    });
  }
  if (refusal !== undefined) throw refusal;
  if (failure !== undefined) {
    throw failure instanceof AgentdError
      ? failure
      : new SkillArchiveError('Archive is not a readable tar', { cause: String(failure) });
  }
}

function readEntry(options: {
  entry: ReadEntry;
  collector: SkillCollector;
  refuse: (error: unknown) => void;
}): void {
  const { entry, collector, refuse } = options;
  collector.countEntry();
  const path = entry.path;
  switch (entry.type) {
    case 'Directory':
      collector.addDirectory(path);
      entry.resume();
      return;
    case 'File':
    case 'OldFile':
    case 'ContiguousFile': {
      canonicalEntryPath(path); // refuse a bad path before reading any of its bytes
      const chunks: Buffer[] = [];
      let refused = false;
      entry.on('data', (chunk: Buffer) => {
        if (refused) return;
        try {
          collector.countBytes(chunk.length);
          chunks.push(chunk);
        } catch (error) {
          refused = true;
          refuse(error);
        }
      });
      entry.on('end', () => {
        if (refused) return;
        try {
          const executable = ((entry.mode ?? 0) & 0o111) !== 0;
          collector.addFile({ rawPath: path, executable, content: Buffer.concat(chunks) });
        } catch (error) {
          refuse(error);
        }
      });
      return;
    }
    case 'SymbolicLink':
    case 'Link':
      throw new SkillLinkError(
        `Skill entry ${path} is a ${entry.type === 'Link' ? 'hard' : 'symbolic'} link`,
        {
          path,
          linkpath: entry.linkpath,
        },
      );
    default:
      throw new SkillSpecialFileError(
        `Skill entry ${path} is a ${entry.type}, not a regular file or directory`,
        {
          path,
          type: entry.type,
        },
      );
  }
}
