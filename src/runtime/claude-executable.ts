import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The `claude` executable that the SDK ships for this platform, or `claude` from PATH. */
export function claudeExecutablePath(): string {
  try {
    const manifest = require.resolve(
      `@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}/package.json`,
    );
    return join(dirname(manifest), process.platform === 'win32' ? 'claude.exe' : 'claude');
  } catch {
    return 'claude';
  }
}
