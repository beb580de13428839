import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentdError } from '../errors/index.js';
import { FileSkillStore } from './file-skill-store.js';
import { skillMarkdown, tarGz, writeFolder, zipArchive } from './test-fixtures/archives.js';

let root: string;
let store: FileSkillStore;
let storeDirectory: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agentd-skills-'));
  storeDirectory = join(root, 'data', 'skills');
  store = new FileSkillStore({ directory: storeDirectory });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const files = {
  'SKILL.md': skillMarkdown,
  'reference/forms.md': '# Forms\n',
  'scripts/merge.sh': { content: '#!/bin/sh\necho merged\n', mode: 0o755 },
};

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AgentdError) return error.code;
    throw error;
  }
  throw new Error('expected a refusal');
}

async function blobNames(): Promise<string[]> {
  return readdir(join(storeDirectory, 'sha256')).catch(() => []);
}

describe('FileSkillStore', () => {
  it('add: stores a folder under the SHA-256 of its canonical content and reads its frontmatter', async () => {
    const folder = join(root, 'pdf-tools');
    await writeFolder(folder, files);

    const added = await store.add(folder);

    expect(added.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(added).toMatchObject({
      name: 'pdf-tools',
      description: 'Fill and merge PDF forms. Use when the user mentions PDFs.',
      created: true,
      bytes: Buffer.byteLength(skillMarkdown) + 8 + 22,
      files: [
        { path: 'SKILL.md', bytes: Buffer.byteLength(skillMarkdown), executable: false },
        { path: 'reference/forms.md', bytes: 8, executable: false },
        { path: 'scripts/merge.sh', bytes: 22, executable: true },
      ],
    });
    expect(await blobNames()).toEqual([added.digest.slice('sha256:'.length)]);
    const skill = await store.get(added.digest);
    expect(skill.files.map((file) => file.content.toString())).toEqual([
      skillMarkdown,
      '# Forms\n',
      '#!/bin/sh\necho merged\n',
    ]);
    expect(await readdir(join(storeDirectory, 'tmp'))).toEqual([]);
  });

  it('add: the same content twice is stored once and the second add says created: false', async () => {
    const folder = join(root, 'pdf-tools');
    await writeFolder(folder, files);

    const first = await store.add(folder);
    const second = await store.add(folder);

    expect(second).toEqual({ ...first, created: false });
    expect(await blobNames()).toHaveLength(1);
  });

  it('add: the digest ignores file order, mtimes, owners modes and the archive the skill came in', async () => {
    const first = join(root, 'first', 'pdf-tools');
    await writeFolder(first, files);
    const second = join(root, 'second', 'pdf-tools');
    // Written in the other order, other mtimes, other non-executable mode bits.
    await writeFolder(second, {
      'scripts/merge.sh': { content: '#!/bin/sh\necho merged\n', mode: 0o700 },
      'reference/forms.md': { content: '# Forms\n', mode: 0o600 },
      'SKILL.md': { content: skillMarkdown, mode: 0o664 },
    });
    await utimes(join(second, 'SKILL.md'), new Date('2001-02-03'), new Date('2001-02-03'));
    await mkdir(join(second, 'empty-folder'));
    execFileSync('tar', ['-czf', join(root, 'skill.tgz'), '-C', join(root, 'second'), 'pdf-tools']);
    execFileSync('zip', ['-qr', join(root, 'skill.zip'), '.'], { cwd: first });
    const archiveBytes = await readFile(join(root, 'skill.tgz'));

    const digests = new Set<string>();
    for (const source of [first, second, join(root, 'skill.tgz'), join(root, 'skill.zip'), archiveBytes]) {
      digests.add((await store.add(source)).digest);
    }

    expect(digests.size).toBe(1);
    expect(await blobNames()).toHaveLength(1);
  });

  it('add: concurrent adds of the same content all succeed and leave one blob', async () => {
    const folder = join(root, 'pdf-tools');
    await writeFolder(folder, files);

    const results = await Promise.all([store.add(folder), store.add(folder), store.add(folder)]);

    expect(new Set(results.map((result) => result.digest)).size).toBe(1);
    expect(await blobNames()).toHaveLength(1);
    expect(await readdir(join(storeDirectory, 'tmp'))).toEqual([]);
  });

  it('materialize: concurrent materializations into one target give one whole skill and skill_target_exists', async () => {
    const folder = join(root, 'pdf-tools');
    await writeFolder(folder, files);
    const { digest } = await store.add(folder);
    const target = join(root, 'config', 'skills', 'pdf-tools');

    const outcomes = await Promise.allSettled([1, 2, 3].map(() => store.materialize(digest, target)));

    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected')
        expect(outcome.reason).toMatchObject({ code: 'skill_target_exists' });
    }
    expect(await readdir(join(root, 'config', 'skills'))).toEqual(['pdf-tools']);
    expect(await readFile(join(target, 'scripts/merge.sh'), 'utf8')).toBe('#!/bin/sh\necho merged\n');
  });

  it('add: non-ASCII names give one digest from a folder, a tar and a zip made by Info-ZIP (UTF-8, unflagged)', async () => {
    const folder = join(root, 'unicode');
    await writeFolder(folder, { 'SKILL.md': skillMarkdown, 'docs/ü-naïve-файл.md': 'x' });
    execFileSync('zip', ['-qr', join(root, 'unicode.zip'), '.'], { cwd: folder });
    execFileSync('tar', ['-czf', join(root, 'unicode.tgz'), '-C', folder, '.']);

    const fromFolder = await store.add(folder);
    const fromZip = await store.add(join(root, 'unicode.zip'));
    const fromTar = await store.add(join(root, 'unicode.tgz'));

    expect(fromFolder.files.map((file) => file.path)).toEqual(['SKILL.md', 'docs/ü-naïve-файл.md']);
    expect(fromZip.digest).toBe(fromFolder.digest);
    expect(fromTar.digest).toBe(fromFolder.digest);
  });

  it('add: the executable bit is part of the content', async () => {
    const folder = join(root, 'pdf-tools');
    await writeFolder(folder, files);
    const executable = await store.add(folder);
    await chmod(join(folder, 'scripts/merge.sh'), 0o644);

    const plain = await store.add(folder);

    expect(plain.digest).not.toBe(executable.digest);
    expect(plain.created).toBe(true);
  });

  it('add: refuses a skill without SKILL.md or without a name, and stores nothing', async () => {
    const noManifest = join(root, 'no-manifest');
    await writeFolder(noManifest, { 'README.md': '# hi\n' });
    const noName = join(root, 'no-name');
    await writeFolder(noName, { 'SKILL.md': '---\ndescription: nameless\n---\nbody\n' });
    const badName = join(root, 'bad-name');
    await writeFolder(badName, { 'SKILL.md': '---\nname: ../Evil Name\n---\nbody\n' });

    expect(await codeOf(store.add(noManifest))).toBe('skill_invalid');
    expect(await codeOf(store.add(noName))).toBe('skill_invalid');
    expect(await codeOf(store.add(badName))).toBe('skill_invalid');
    expect(await codeOf(store.add(join(root, 'missing')))).toBe('not_found');
    expect(await blobNames()).toEqual([]);
  });

  it('get: a tampered blob is skill_corrupt, never returned; list shows it; adding the content again repairs it', async () => {
    const folder = join(root, 'pdf-tools');
    await writeFolder(folder, files);
    const { digest } = await store.add(folder);
    const blob = join(storeDirectory, 'sha256', digest.slice('sha256:'.length));
    await chmod(blob, 0o644);
    const original = await readFile(blob);
    // Same length, so the blob still parses: only the digest tells.
    await writeFile(blob, original.toString().replace('echo merged', 'rm -rf ~/ #'));

    expect(await codeOf(store.get(digest))).toBe('skill_corrupt');
    expect(await codeOf(store.materialize(digest, join(root, 'out')))).toBe('skill_corrupt');
    await expect(stat(join(root, 'out'))).rejects.toThrow();
    expect(await store.list()).toEqual([{ state: 'corrupt', digest, reason: expect.any(String) }]);

    const readded = await store.add(folder);
    expect(readded.created).toBe(true);
    expect((await store.get(digest)).name).toBe('pdf-tools');
  });

  it('get: a truncated blob is skill_corrupt; an unknown digest is not_found; a malformed one invalid_input', async () => {
    const folder = join(root, 'pdf-tools');
    await writeFolder(folder, files);
    const { digest } = await store.add(folder);
    const blob = join(storeDirectory, 'sha256', digest.slice('sha256:'.length));
    await chmod(blob, 0o644);
    await writeFile(blob, (await readFile(blob)).subarray(0, 40));

    expect(await codeOf(store.get(digest))).toBe('skill_corrupt');
    expect(await codeOf(store.get(`sha256:${'0'.repeat(64)}`))).toBe('not_found');
    expect(await codeOf(store.get('sha256:../../etc/passwd'))).toBe('invalid_input');
  });

  it('list: names every stored skill; a crashed add leaves only a temp file, which list ignores', async () => {
    await writeFolder(join(root, 'a'), { 'SKILL.md': '---\nname: zeta\ndescription: last\n---\n' });
    await writeFolder(join(root, 'b'), { 'SKILL.md': '---\nname: alpha\n---\n' });
    await store.add(join(root, 'a'));
    await store.add(join(root, 'b'));
    await writeFile(join(storeDirectory, 'tmp', 'crashed.partial'), 'agentd-skill 1\nf 99 SKILL.md\n---');

    const listed = await store.list();

    expect(listed.map((entry) => (entry.state === 'ok' ? entry.name : entry.state))).toEqual([
      'alpha',
      'zeta',
    ]);
  });

  it('remove: deletes the blob; a second remove returns false', async () => {
    const folder = join(root, 'pdf-tools');
    await writeFolder(folder, files);
    const { digest } = await store.add(folder);

    expect(await store.remove(digest)).toBe(true);
    expect(await store.remove(digest)).toBe(false);
    expect(await codeOf(store.get(digest))).toBe('not_found');
    expect(await store.list()).toEqual([]);
  });

  it('materialize: writes exactly the verified files with their executable bits, and refuses a non-empty target', async () => {
    const folder = join(root, 'pdf-tools');
    await writeFolder(folder, files);
    const { digest } = await store.add(folder);
    const target = join(root, 'config', 'skills', 'pdf-tools');

    const summary = await store.materialize(digest, target);

    expect(summary.name).toBe('pdf-tools');
    expect((await readdir(target, { recursive: true })).sort()).toEqual([
      'SKILL.md',
      'reference',
      'reference/forms.md',
      'scripts',
      'scripts/merge.sh',
    ]);
    expect(await readFile(join(target, 'SKILL.md'), 'utf8')).toBe(skillMarkdown);
    expect((await stat(join(target, 'scripts/merge.sh'))).mode & 0o777).toBe(0o755);
    expect((await stat(join(target, 'reference/forms.md'))).mode & 0o777).toBe(0o644);
    expect(await readdir(join(root, 'config', 'skills'))).toEqual(['pdf-tools']);

    expect(await codeOf(store.materialize(digest, target))).toBe('skill_target_exists');
    const empty = join(root, 'empty');
    await mkdir(empty);
    await store.materialize(digest, empty);
    expect(await readFile(join(empty, 'SKILL.md'), 'utf8')).toBe(skillMarkdown);
  });

  it('add: takes archive bytes as well as paths (an upload), with the skill wrapped in one top folder', async () => {
    const zip = zipArchive([
      { path: 'pdf-tools/SKILL.md', content: skillMarkdown },
      { path: 'pdf-tools/scripts/merge.sh', content: '#!/bin/sh\n', mode: 0o100755 },
    ]);
    const tgz = tarGz([
      { path: 'SKILL.md', content: skillMarkdown },
      { path: 'scripts/merge.sh', content: '#!/bin/sh\n', mode: 0o755 },
    ]);

    const fromZip = await store.add(zip);
    const fromTar = await store.add(new Uint8Array(tgz));

    expect(fromTar.digest).toBe(fromZip.digest);
    expect(fromZip.files.map((file) => [file.path, file.executable])).toEqual([
      ['SKILL.md', false],
      ['scripts/merge.sh', true],
    ]);
  });
});
