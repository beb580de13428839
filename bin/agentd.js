#!/usr/bin/env node
import { main } from '../dist/cli/main.js';

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error(`agentd: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
