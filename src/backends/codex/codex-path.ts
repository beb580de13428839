import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';

/** The platform packages `@openai/codex` installs its executable from, by target triple. */
const platformPackages: Record<string, string> = {
  'x86_64-unknown-linux-musl': '@openai/codex-linux-x64',
  'aarch64-unknown-linux-musl': '@openai/codex-linux-arm64',
  'x86_64-apple-darwin': '@openai/codex-darwin-x64',
  'aarch64-apple-darwin': '@openai/codex-darwin-arm64',
  'x86_64-pc-windows-msvc': '@openai/codex-win32-x64',
  'aarch64-pc-windows-msvc': '@openai/codex-win32-arm64',
};

function targetTriple(): string | null {
  const { platform, arch } = process;
  const cpu = arch === 'x64' ? 'x86_64' : arch === 'arm64' ? 'aarch64' : null;
  if (!cpu) return null;
  if (platform === 'linux' || platform === 'android') return `${cpu}-unknown-linux-musl`;
  if (platform === 'darwin') return `${cpu}-apple-darwin`;
  if (platform === 'win32') return `${cpu}-pc-windows-msvc`;
  return null;
}

const isFile = (path: string) => statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
const isDirectory = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;

export interface CodexExecutable {
  path: string;
  /** Folders of helper programs (`rg`) that go first on the child's PATH. */
  pathDirs: string[];
}

/**
 * The `codex` executable that npm installed with `@openai/codex` (its platform package's
 * `vendor/<triple>/bin/codex`), found the way the package's own launcher finds it. Throws when
 * the platform has none or the optional dependency is missing.
 */
export function findCodexExecutable(): CodexExecutable {
  const triple = targetTriple();
  const platformPackage = triple ? platformPackages[triple] : undefined;
  if (!triple || !platformPackage)
    throw new Error(`codex has no executable for ${process.platform} (${process.arch})`);
  let vendor: string;
  try {
    const codexPackage = createRequire(import.meta.url).resolve('@openai/codex/package.json');
    const platformJson = createRequire(codexPackage).resolve(`${platformPackage}/package.json`);
    vendor = join(dirname(platformJson), 'vendor', triple);
  } catch {
    throw new Error(
      `the codex executable is missing: install @openai/codex with its optional dependency ${platformPackage}`,
    );
  }
  const name = process.platform === 'win32' ? 'codex.exe' : 'codex';
  const path = join(vendor, 'bin', name);
  if (!isFile(path)) throw new Error(`the codex executable is missing: ${path}`);
  return { path, pathDirs: [join(vendor, 'codex-path')].filter(isDirectory) };
}

/** `env` with `dirs` first on its PATH. */
export function withPathDirs(env: Record<string, string>, dirs: string[]): Record<string, string> {
  if (dirs.length === 0) return env;
  const key = Object.keys(env).find((name) => name.toUpperCase() === 'PATH') ?? 'PATH';
  const rest = (env[key] ?? '').split(delimiter).filter((entry) => entry && !dirs.includes(entry));
  return { ...env, [key]: [...dirs, ...rest].join(delimiter) };
}
