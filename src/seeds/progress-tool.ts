import { z } from 'zod';
import type { HostTool } from '../backends/agent-backend.js';
import type { SeedEvent } from '../journal/journal-event.js';
import type { Seed } from './seed-schema.js';

/** Evidence longer than this is cut: it is journaled and shown, not a place for whole files. */
const evidenceLimit = 4000;

/**
 * `report_progress`: the agent says where a criterion stands. agentd journals it as
 * `seed.criterion`; for a criterion with a check, it is information, never proof.
 */
export function progressTool(options: {
  seed: Seed;
  record: (event: Extract<SeedEvent, { type: 'seed.criterion' }>) => Promise<void>;
}): HostTool {
  const ids = options.seed.criteria.map((criterion) => criterion.id);
  return {
    name: 'report_progress',
    description:
      'Report progress on one acceptance criterion: its id, a state (in_progress, met, blocked) and the evidence. A criterion with a check is met only when agentd runs the check and it passes.',
    input: {
      criterionId: z.string().describe(`one of: ${ids.join(', ')}`),
      state: z.enum(['in_progress', 'met', 'blocked']),
      evidence: z.string().describe('what you did and what shows it, briefly'),
    },
    async run(input) {
      const criterionId = String(input.criterionId);
      const criterion = options.seed.criteria.find((each) => each.id === criterionId);
      if (!criterion)
        return {
          text: `unknown criterion ${criterionId}; the criteria are ${ids.join(', ')}`,
          isError: true,
        };
      const state = input.state as 'in_progress' | 'met' | 'blocked';
      const evidence = String(input.evidence ?? '').slice(0, evidenceLimit);
      await options.record({ type: 'seed.criterion', criterionId, state, evidence });
      const note =
        state === 'met' && criterion.check
          ? ' agentd will run its check when you end your turn; only a passing check makes it met.'
          : '';
      return { text: `recorded: ${criterionId} is ${state}.${note}` };
    },
  };
}
