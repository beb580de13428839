#!/usr/bin/env node
import { main } from '../dist/cli/main.js';

main(process.argv).then(
  // Exits at once: a `claude` that `agentd run` has closed may take a second more to go, and need
  // not hold the prompt (its output to this process is finished).
  (code) => process.exit(code),
  (error) => {
    console.error(`agentd: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
