import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentdError } from '../errors/index.js';
import { FileSkillStore } from './file-skill-store.js';
import { skillMarkdown, tarArchive, tarGz, writeFolder, zipArchive } from './test-fixtures/archives.js';

let root: string;
let storeDirectory: string;
let store: FileSkillStore;
let before: string[];

/** Every path and byte under the store, to show a refusal changed nothing. */
async function snapshot(): Promise<string[]> {
  const names = await readdir(storeDirectory, { recursive: true }).catch(() => []);
  const entries: string[] = [];
  for (const name of names.sort()) {
    const content = await readFile(join(storeDirectory, name)).catch(() => Buffer.from('<dir>'));
    entries.push(`${name}:${content.toString('base64')}`);
  }
  return entries;
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agentd-skills-unpack-'));
  storeDirectory = join(root, 'skills');
  // Small limits keep the bombs small; the defaults are checked in their own test.
  store = new FileSkillStore({ directory: storeDirectory, limits: { maxBytes: 64 * 1024, maxFiles: 10 } });
  await store.add(tarGz([{ path: 'SKILL.md', content: skillMarkdown }]));
  before = await snapshot();
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function refusal(source: string | Buffer): Promise<AgentdError> {
  try {
    await store.add(source);
  } catch (error) {
    if (error instanceof AgentdError) return error;
    throw error;
  }
  throw new Error('expected the skill to be refused');
}

async function expectRefused(source: string | Buffer, code: string): Promise<void> {
  const error = await refusal(source);
  expect(error.code).toBe(code);
  expect(error.userError).toBe(true);
  expect(await snapshot()).toEqual(before);
}

const manifest = { path: 'SKILL.md', content: skillMarkdown };

describe('add refuses unsafe archives and stores nothing', () => {
  it('a tar entry that climbs out with ../ is skill_unsafe_path', async () => {
    await expectRefused(tarGz([manifest, { path: '../evil.sh', content: 'x' }]), 'skill_unsafe_path');
    await expectRefused(tarGz([manifest, { path: 'a/../../evil.sh', content: 'x' }]), 'skill_unsafe_path');
    await expectRefused(tarGz([manifest, { path: '../', type: 'Directory' }]), 'skill_unsafe_path');
  });

  it('a tar entry with an absolute path is skill_unsafe_path', async () => {
    await expectRefused(tarGz([manifest, { path: '/etc/cron.d/evil', content: 'x' }]), 'skill_unsafe_path');
  });

  it('a zip entry that climbs out or is absolute is skill_unsafe_path', async () => {
    await expectRefused(zipArchive([manifest, { path: '../evil.sh', content: 'x' }]), 'skill_unsafe_path');
    await expectRefused(zipArchive([manifest, { path: '/tmp/evil.sh', content: 'x' }]), 'skill_unsafe_path');
    await expectRefused(zipArchive([manifest, { path: '..\\evil.sh', content: 'x' }]), 'skill_unsafe_path');
    await expectRefused(zipArchive([manifest, { path: 'C:/evil.sh', content: 'x' }]), 'skill_unsafe_path');
  });

  it('a symlink escaping the skill, in a tar or a zip, is skill_link', async () => {
    await expectRefused(
      tarGz([manifest, { path: 'passwd', type: 'SymbolicLink', linkpath: '../../../etc/passwd' }]),
      'skill_link',
    );
    await expectRefused(
      zipArchive([manifest, { path: 'passwd', content: '/etc/passwd', mode: 0o120777 }]),
      'skill_link',
    );
  });

  it('a zip made by the zip tool with a stored symlink (zip -y) is skill_link', async () => {
    const folder = join(root, 'linked');
    await writeFolder(folder, { 'SKILL.md': skillMarkdown });
    await symlink('/etc/passwd', join(folder, 'passwd'));
    execFileSync('zip', ['-qry', join(root, 'linked.zip'), '.'], { cwd: folder });

    await expectRefused(join(root, 'linked.zip'), 'skill_link');
  });

  it('a tar hard link is skill_link, even one to a file inside', async () => {
    await expectRefused(
      tarGz([manifest, { path: 'shadow', type: 'Link', linkpath: '/etc/shadow' }]),
      'skill_link',
    );
    await expectRefused(
      tarGz([manifest, { path: 'copy.md', type: 'Link', linkpath: 'SKILL.md' }]),
      'skill_link',
    );
  });

  it('a device or FIFO entry is skill_special_file', async () => {
    await expectRefused(tarGz([manifest, { path: 'null', type: 'CharacterDevice' }]), 'skill_special_file');
    await expectRefused(tarGz([manifest, { path: 'pipe', type: 'FIFO' }]), 'skill_special_file');
    await expectRefused(zipArchive([manifest, { path: 'null', mode: 0o020666 }]), 'skill_special_file');
  });

  it('a zip bomb whose entry lies about its size is skill_too_large, counted while inflating', async () => {
    const bomb = zipArchive([
      manifest,
      { path: 'bomb.bin', content: Buffer.alloc(4 * 1024 * 1024), declaredSize: 10 },
    ]);
    expect(bomb.length).toBeLessThan(16 * 1024);

    await expectRefused(bomb, 'skill_too_large');
  });

  it('a zip entry whose size lies within the limit is skill_archive_invalid', async () => {
    await expectRefused(
      zipArchive([manifest, { path: 'notes.md', content: 'a'.repeat(100), declaredSize: 10 }]),
      'skill_archive_invalid',
    );
  });

  it('a tar.gz over the size limit is skill_too_large, and so is a gzip bomb of padding after the last entry', async () => {
    await expectRefused(
      tarGz([manifest, { path: 'big.bin', content: Buffer.alloc(65 * 1024) }]),
      'skill_too_large',
    );
    const padded = gzipSync(Buffer.concat([tarArchive([manifest]), Buffer.alloc(64 * 1024 * 1024)]));
    expect(padded.length).toBeLessThan(128 * 1024);
    await expectRefused(padded, 'skill_too_large');
  });

  it('more entries than the limit is skill_too_many_files, in a tar and a zip', async () => {
    const many = Array.from({ length: 11 }, (_, index) => ({ path: `notes/${index}.md`, content: 'x' }));
    await expectRefused(tarGz([manifest, ...many]), 'skill_too_many_files');
    await expectRefused(zipArchive([manifest, ...many]), 'skill_too_many_files');
  });

  it('the same path twice is skill_invalid (tar would let the second win)', async () => {
    await expectRefused(
      tarGz([manifest, { path: './SKILL.md', content: '---\nname: other\n---\n' }]),
      'skill_invalid',
    );
  });

  it('a file that is not an archive, or a damaged one, is skill_archive_invalid', async () => {
    await writeFile(join(root, 'notes.txt'), 'just text');
    await expectRefused(join(root, 'notes.txt'), 'skill_archive_invalid');
    const damaged = tarGz([manifest, { path: 'a.md', content: 'a'.repeat(5000) }]).subarray(0, 60);
    await expectRefused(damaged, 'skill_archive_invalid');
    await expectRefused(zipArchive([manifest]).subarray(0, 40), 'skill_archive_invalid');
  });

  it('the default limits are 10 MiB and 1000 entries', async () => {
    const defaults = new FileSkillStore({ directory: join(root, 'defaults') });
    const justUnder = tarGz([manifest, { path: 'big.bin', content: Buffer.alloc(10 * 1024 * 1024 - 4096) }]);
    const over = tarGz([manifest, { path: 'big.bin', content: Buffer.alloc(10 * 1024 * 1024) }]);
    const many = Array.from({ length: 1000 }, (_, index) => ({ path: `n/${index}`, content: '' }));

    expect((await defaults.add(justUnder)).created).toBe(true);
    await expect(defaults.add(over)).rejects.toMatchObject({ code: 'skill_too_large' });
    await expect(defaults.add(tarGz([manifest, ...many]))).rejects.toMatchObject({
      code: 'skill_too_many_files',
    });
  });
});

describe('add refuses unsafe folders and stores nothing', () => {
  it('a folder with a symlink is skill_link, whether it escapes or stays inside', async () => {
    const escaping = join(root, 'escaping');
    await writeFolder(escaping, { 'SKILL.md': skillMarkdown });
    await symlink('/etc/passwd', join(escaping, 'passwd'));
    const inside = join(root, 'inside');
    await writeFolder(inside, { 'SKILL.md': skillMarkdown, 'docs/a.md': 'a' });
    await symlink('../SKILL.md', join(inside, 'docs', 'again.md'));

    await expectRefused(escaping, 'skill_link');
    await expectRefused(inside, 'skill_link');
  });

  it('a folder with a FIFO is skill_special_file (and reading does not hang on it)', async () => {
    const folder = join(root, 'fifo');
    await writeFolder(folder, { 'SKILL.md': skillMarkdown });
    execFileSync('mkfifo', [join(folder, 'pipe')]);

    await expectRefused(folder, 'skill_special_file');
  });

  it('a folder over the limits is skill_too_large or skill_too_many_files', async () => {
    const large = join(root, 'large');
    await writeFolder(large, { 'SKILL.md': skillMarkdown, 'big.bin': Buffer.alloc(65 * 1024) });
    const many = join(root, 'many');
    await writeFolder(many, {
      'SKILL.md': skillMarkdown,
      ...Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`n${index}.md`, 'x'])),
    });

    await expectRefused(large, 'skill_too_large');
    await expectRefused(many, 'skill_too_many_files');
  });
});
