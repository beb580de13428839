#!/usr/bin/env node
// `agentd run` starts `claude` as soon as the SDK is loaded: load it before the CLI's own modules,
// which would otherwise share the one thread with it (BENCHMARKS.md, run).
if (process.argv[2] === 'run') await import('@anthropic-ai/claude-agent-sdk').catch(() => undefined);
const { main } = await import('../dist/cli/main.js');

main(process.argv).then(
  // Exits at once: a `claude` that `agentd run` has closed may take a second more to go, and need
  // not hold the prompt (its output to this process is finished).
  (code) => process.exit(code),
  (error) => {
    console.error(`agentd: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
