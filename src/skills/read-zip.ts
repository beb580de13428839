import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { AgentdError, SkillArchiveError, SkillLinkError, SkillSpecialFileError } from '../errors/index.js';
import type { SkillCollector } from './skill-collector.js';
import { canonicalEntryPath } from './skill-path.js';

const fileTypeMask = 0o170000;
const regularFile = 0o100000;
const directory = 0o040000;
const symbolicLink = 0o120000;

/**
 * Reads a zip into the collector. yauzl's own name checks and size checks are turned off so each
 * refusal gets agentd's code (`skill_unsafe_path`, `skill_too_large`) instead of a library
 * message; the bytes are counted here as they inflate, never trusted from the entry's header.
 */
export async function readSkillZip(options: {
  source: string | Buffer;
  collector: SkillCollector;
}): Promise<void> {
  const { source, collector } = options;
  const zipOptions = { lazyEntries: true, autoClose: true, decodeStrings: false, validateEntrySizes: false };
  let zipfile: ZipFile;
  try {
    zipfile =
      typeof source === 'string'
        ? await yauzl.openPromise(source, zipOptions)
        : await yauzl.fromBufferPromise(source, zipOptions);
  } catch (error) {
    throw new SkillArchiveError('Archive is not a readable zip', { cause: String(error) });
  }
  try {
    for await (const entry of zipfile.eachEntry()) await readEntry({ zipfile, entry, collector });
  } catch (error) {
    if (error instanceof AgentdError) throw error;
    throw new SkillArchiveError('Archive is not a readable zip', { cause: String(error) });
  } finally {
    zipfile.close();
  }
}

async function readEntry(options: {
  zipfile: ZipFile;
  entry: Entry;
  collector: SkillCollector;
}): Promise<void> {
  const { zipfile, entry, collector } = options;
  collector.countEntry();
  const path = entryName(entry);
  // Finder's resource-fork shadows; skipping them lets a zip made with "Compress" load as its folder.
  if (path.split('/')[0] === '__MACOSX') return;
  // The Unix mode sits in the high half of the external attributes. It is read whatever system
  // the zip claims to come from, so a link cannot pass by claiming to be from DOS.
  const mode = (entry.externalFileAttributes >>> 16) & 0xffff;
  const type = mode & fileTypeMask;
  if (type === symbolicLink) throw new SkillLinkError(`Skill entry ${path} is a symbolic link`, { path });
  if (path.endsWith('/') || type === directory) {
    collector.addDirectory(path);
    return;
  }
  if (type !== 0 && type !== regularFile) {
    throw new SkillSpecialFileError(`Skill entry ${path} is not a regular file or directory`, { path, mode });
  }
  canonicalEntryPath(path); // refuse a bad path before inflating any of its bytes
  if (entry.isEncrypted() || !entry.canDecodeFileData()) {
    throw new SkillArchiveError(`Skill entry ${path} is encrypted or uses an unsupported compression`, {
      path,
    });
  }
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of await zipfile.openReadStreamPromise(entry)) {
    if (!Buffer.isBuffer(chunk)) throw new SkillArchiveError('Archive stream yielded a non-binary chunk');
    collector.countBytes(chunk.length);
    length += chunk.length;
    chunks.push(chunk);
  }
  if (length !== entry.uncompressedSize) {
    throw new SkillArchiveError(`Skill entry ${path} does not match the size its header declares`, {
      path,
      declared: entry.uncompressedSize,
      actual: length,
    });
  }
  collector.addFile({ rawPath: path, executable: (mode & 0o111) !== 0, content: Buffer.concat(chunks) });
}

const utf8NameFlag = 0x800;
const unicodePathField = 0x7075;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The entry's name as its maker meant it. Info-ZIP's `zip` on Linux writes UTF-8 names without
 * setting the UTF-8 flag, which read as CP437 would turn `ü` into `├╝` and give the same folder
 * another digest; so an unflagged name that is valid UTF-8 is read as UTF-8 (as `unzip` on Unix
 * does), and only other bytes fall back to CP437. Backslashes become `/`, as Windows tools mean.
 */
function entryName(entry: Entry): string {
  const flagged = (entry.generalPurposeBitFlag & utf8NameFlag) !== 0;
  const hasUnicodeField = entry.extraFields.some((field) => field.id === unicodePathField);
  if (!flagged && !hasUnicodeField) {
    try {
      return strictUtf8.decode(entry.fileNameRaw).replaceAll('\\', '/');
    } catch {
      // not UTF-8: an old DOS or Windows zip, in CP437
    }
  }
  return yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, false);
}
