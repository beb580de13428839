import type { AgentEvent } from '../backends/agent-event.js';
import type { GoalEvent } from '../journal/journal-event.js';

/** What claude says back to `/goal` (a synthetic assistant message) and when its Stop hook blocks. */
const goalSet = /^Goal set: ([\s\S]+)$/;
const goalCleared = /^Goal cleared(?: after [^:]*)?: "?([\s\S]+?)"?(?:\. Run \/goal again to continue\.)?$/;
const stopFeedback = /^Stop hook feedback:\n\[([\s\S]+?)\]: ([\s\S]*)$/;

function textOf(raw: unknown): string | null {
  const content = (raw as { message?: { content?: unknown } } | undefined)?.message?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts = content.flatMap((block: { type?: string; text?: unknown }) =>
    block.type === 'text' && typeof block.text === 'string' ? [block.text] : [],
  );
  return texts.length > 0 ? texts.join('\n') : null;
}

function synthetic(raw: unknown): boolean {
  const message = raw as { isSynthetic?: unknown; message?: { model?: unknown } } | undefined;
  return message?.isSynthetic === true || message?.message?.model === '<synthetic>';
}

/**
 * Reads claude's native goal lifecycle out of its messages, for the journal: set, each evaluation
 * that kept the turn going, met (the turn under the goal ended on its own), cleared. No goal is
 * kept here beyond what the next message needs.
 */
export class GoalWatcher {
  private condition: string | null = null;
  private blocked = false;

  /** The goal events an agent event stands for (usually none). */
  observe(event: AgentEvent): GoalEvent[] {
    if (event.type === 'agent.message' && synthetic(event.raw)) {
      const set = goalSet.exec(event.text.trim());
      if (set?.[1]) {
        this.condition = set[1];
        return [{ type: 'goal.set', condition: set[1] }];
      }
      const cleared = goalCleared.exec(event.text.trim());
      if (cleared) {
        this.condition = null;
        return [{ type: 'goal.cleared', condition: cleared[1] ?? null }];
      }
      return [];
    }
    if (event.type === 'claude.message' && event.subtype === 'user' && synthetic(event.raw)) {
      const feedback = stopFeedback.exec(textOf(event.raw) ?? '');
      if (!feedback?.[1]) return [];
      this.condition ??= feedback[1];
      return [{ type: 'goal.evaluated', condition: feedback[1], met: false, reason: feedback[2] ?? '' }];
    }
    if (
      event.type === 'claude.message' &&
      /stop-hook-(block-cap|error)/.test(JSON.stringify(event.raw ?? ''))
    ) {
      // claude gave up on its evaluation: the turn ended, but not because the condition holds.
      this.blocked = true;
      return [];
    }
    if (event.type === 'agent.turn.completed') {
      const condition = this.condition;
      const blocked = this.blocked;
      this.blocked = false;
      if (condition === null || blocked || event.isError) return [];
      this.condition = null;
      return [{ type: 'goal.met', condition }];
    }
    return [];
  }
}
