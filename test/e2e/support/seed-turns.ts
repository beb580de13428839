/** Scripted model turns for seed runs: the agent reporting progress, and a Bash call doing the work. */
import type { ScriptTurn } from '../../../src/testing/index.js';

/** The agent calls agentd's `report_progress` tool for a criterion. */
export const progress = (criterionId: string, state: string, evidence: string): ScriptTurn => ({
  content: [
    { type: 'tool_use', name: 'mcp__agentd__report_progress', input: { criterionId, state, evidence } },
  ],
});

/** The agent runs `command` with Bash. */
export const bash = (command: string): ScriptTurn => ({
  content: [{ type: 'tool_use', name: 'Bash', input: { command, description: 'work' } }],
});
