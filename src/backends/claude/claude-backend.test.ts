import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ClaudeConfig, defaultClaudeConfig } from '../../config/claude-config.js';
import {
  type RecordedRequest,
  requestText,
  type Script,
  type ScriptedModel,
  startScriptedModel,
  toolResults,
} from '../../testing/index.js';
import { AsyncQueue } from '../../util/async-queue.js';
import type { AgentSession, UserInput } from '../agent-backend.js';
import type { AgentEvent } from '../agent-event.js';
import { sessionSpecOf } from '../session-spec.js';
import { ClaudeBackend } from './claude-backend.js';

// The backend against the real `claude` and the scripted model: agentd's own retries, timeouts,
// interrupts and multi-turn sessions.

let claudeConfigDir: string;
let workDir: string;
let model: ScriptedModel | undefined;
let session: AgentSession | undefined;

beforeAll(async () => {
  claudeConfigDir = await mkdtemp(join(tmpdir(), 'agentd-backend-claude-'));
});

afterAll(async () => {
  // A claude that is still exiting may write into its config dir: retry the removal a few times.
  await rm(claudeConfigDir, { recursive: true, force: true, maxRetries: 5 });
});

afterEach(async () => {
  await session?.close();
  session = undefined;
  await model?.close();
  model = undefined;
  await rm(workDir, { recursive: true, force: true });
});

async function setup(script: Script, overrides: Partial<ClaudeConfig> = {}): Promise<ClaudeConfig> {
  workDir = await realpath(await mkdtemp(join(tmpdir(), 'agentd-backend-')));
  model = await startScriptedModel({ script });
  return {
    ...defaultClaudeConfig(),
    cwd: workDir,
    env: {
      ...model.env(),
      CLAUDE_CONFIG_DIR: claudeConfigDir,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    },
    retry: { maxRetries: 1, initialDelayMs: 50, maxDelayMs: 100 },
    timeoutSeconds: 60,
    ...overrides,
  };
}

const input = (text: string): UserInput => ({ id: randomUUID(), text });

/**
 * Runs one session over `prompts`, sending the next prompt once the previous turn has ended
 * (successfully or with a final error). `onEvent` may act on the session mid-turn.
 */
async function collect(
  config: ClaudeConfig,
  prompts: UserInput[],
  onEvent?: (event: AgentEvent, session: AgentSession) => void,
): Promise<AgentEvent[]> {
  const inputs = new AsyncQueue<UserInput>();
  const pending = [...prompts];
  inputs.push(pending.shift()!);
  session = new ClaudeBackend().startSession({ spec: sessionSpecOf(config), inputs });
  const events: AgentEvent[] = [];
  for await (const event of session) {
    events.push(event);
    onEvent?.(event, session);
    const turnOver =
      (event.type === 'agent.turn.completed' && !event.isError) || event.type === 'agent.error';
    if (turnOver) {
      const next = pending.shift();
      if (next) inputs.push(next);
      else inputs.end();
    }
  }
  return events;
}

const ofType = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type);

/** The text of the last user message (claude appends its environment as a `system` message). */
const lastUserText = (request: RecordedRequest): string => {
  const last = (request.body?.messages ?? []).filter((message) => message.role === 'user').at(-1);
  expect(last).toBeDefined();
  return requestText({ ...request, body: { messages: [last!] } });
};

const occurrences = (text: string, part: string) => text.split(part).length - 1;

// Each test starts claude (about 1 s idle); on a loaded 2-core machine that can take tens of seconds.
describe('ClaudeBackend', { timeout: 120_000 }, () => {
  it('retries a turn itself once claude has used up its own retries, and then succeeds', async () => {
    // claude gets CLAUDE_CODE_MAX_RETRIES=1: two 500s end its attempt; agentd's retry gets the answer.
    const config = await setup([
      { error: { status: 500 } },
      { error: { status: 500 } },
      { text: 'recovered' },
    ]);
    const prompt = input('Say something, please.');
    const events = await collect(config, [prompt]);

    const retries = ofType(events, 'agent.retry');
    expect(retries.map((retry) => retry.by)).toEqual(['claude', 'agentd']);
    expect(retries[1]).toMatchObject({
      attempt: 1,
      maxRetries: 1,
      error: { code: 'server_error', transient: true, status: 500 },
    });
    expect(retries[1]!.delayMs).toBeGreaterThanOrEqual(25);
    expect(retries[1]!.delayMs).toBeLessThanOrEqual(50);
    const completed = ofType(events, 'agent.turn.completed');
    expect(completed.map((turn) => turn.isError)).toEqual([true, false]);
    expect(completed[1]).toMatchObject({ result: 'recovered', inputIds: [prompt.id] });
    expect(ofType(events, 'agent.error')).toEqual([]);
    // The retry is agentd's: the client only ever hears of the input it sent.
    expect(ofType(events, 'input.delivered').map((event) => event.inputId)).toEqual([prompt.id]);
    // claude recorded the prompt before failing: the retry continues instead of asking twice.
    const requests = model!.conversationRequests();
    expect(requests).toHaveLength(3);
    expect(lastUserText(requests[2]!)).toMatch(/Continue where you left off\./);
    expect(occurrences(requestText(requests[2]!), 'Say something, please.')).toBe(1);
  });

  it('after the model has acted, a retry continues the turn instead of repeating the prompt', async () => {
    const config = await setup(
      (request, index) => {
        if (index === 0) {
          return {
            content: [
              {
                type: 'tool_use',
                id: 'toolu_count',
                name: 'Bash',
                input: { command: 'echo ran >> count.txt' },
              },
            ],
          };
        }
        if (index <= 2) return { error: { status: 500 } };
        return { text: toolResults(request).length > 0 ? 'finished' : 'lost the tool result' };
      },
      { allowedTools: ['Bash'] },
    );
    const prompt = input('ORIGINAL-PROMPT-5519: count once.');
    const events = await collect(config, [prompt]);

    expect(await readFile(join(workDir, 'count.txt'), 'utf8')).toBe('ran\n');
    expect(ofType(events, 'agent.tool_call')).toHaveLength(1);
    expect(ofType(events, 'agent.retry').map((retry) => retry.by)).toEqual(['claude', 'agentd']);
    expect(ofType(events, 'agent.turn.completed').at(-1)).toMatchObject({
      isError: false,
      result: 'finished',
      inputIds: [prompt.id],
    });

    const retried = model!.conversationRequests().at(-1)!;
    expect(lastUserText(retried)).toMatch(/^Continue where you left off\./m);
    expect(occurrences(requestText(retried), 'ORIGINAL-PROMPT-5519')).toBe(1);
    expect(toolResults(retried).map((result) => result.toolUseId)).toEqual(['toolu_count']);
  });

  it('a turn that exceeds its time limit ends with a timeout error', async () => {
    const config = await setup([{ text: 'too late', delayMs: 5000 }], { timeoutSeconds: 1 });
    const events = await collect(config, [input('hurry')]);

    expect(ofType(events, 'agent.error')).toEqual([
      {
        type: 'agent.error',
        error: expect.objectContaining({ code: 'timeout', message: expect.stringContaining('1s') }),
      },
    ]);
    expect(ofType(events, 'agent.message')).toEqual([]);
    expect(ofType(events, 'agent.retry')).toEqual([]);
  });

  it('interrupt() mid-stream ends the turn with a cancelled error', async () => {
    const config = await setup([{ text: 'word '.repeat(400), chunkSize: 5, chunkDelayMs: 200 }], {
      includePartialMessages: true,
    });
    let interrupted = false;
    const events = await collect(config, [input('talk for a long time')], (event, current) => {
      if (event.type === 'agent.text_delta' && !interrupted) {
        interrupted = true;
        void current.interrupt();
      }
    });

    expect(interrupted).toBe(true);
    expect(ofType(events, 'agent.error').map((event) => event.error.code)).toEqual(['cancelled']);
    expect(ofType(events, 'agent.retry')).toEqual([]);
    const streamed = ofType(events, 'agent.text_delta')
      .map((event) => event.text)
      .join('');
    expect(occurrences(streamed, 'word')).toBeLessThan(400);
  });

  it('two inputs in sequence are two turns of one conversation', async () => {
    const config = await setup([{ text: 'FIRST-ANSWER-8080' }, { text: 'second answer' }]);
    const first = input('first question');
    const second = input('second question');
    const events = await collect(config, [first, second]);

    const completed = ofType(events, 'agent.turn.completed');
    expect(completed.map((turn) => [turn.isError, turn.result, turn.inputIds])).toEqual([
      [false, 'FIRST-ANSWER-8080', [first.id]],
      [false, 'second answer', [second.id]],
    ]);
    expect(completed[1]!.sessionId).toBe(completed[0]!.sessionId);
    expect(ofType(events, 'input.delivered').map((event) => event.inputId)).toEqual([first.id, second.id]);
    const [, secondRequest] = model!.conversationRequests();
    const shown = requestText(secondRequest!);
    expect(shown).toContain('first question');
    expect(shown).toContain('FIRST-ANSWER-8080');
    expect(lastUserText(secondRequest!)).toContain('second question');
    expect(session!.nativeSessionId).toBe(completed[0]!.sessionId);
  });
});
