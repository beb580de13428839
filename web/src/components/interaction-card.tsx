import { useEffect, useState } from 'preact/hooks';
import { type AnsweredElsewhere, answerInteraction, findAnswer } from '../api/answers.js';
import type { Interaction } from '../api/types.js';
import { formatTime } from '../format.js';
import { answerSummary } from '../timeline/timeline-model.js';
import { QuestionForm } from './question-form.js';
import { ToolInput } from './tool-input.js';

export interface InteractionCardProps {
  interaction: Interaction;
  /** After an answer (this one or someone else's): the caller reloads what it shows. */
  onAnswered?: () => void;
}

/** A pending approval or question, answered here through the same API as the CLI. */
export function InteractionCard({ interaction, onAnswered }: InteractionCardProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const [elsewhere, setElsewhere] = useState<AnsweredElsewhere | null | undefined>(undefined);
  const [refused, setRefused] = useState(false);

  // Answered while this card was shown (another tab, the CLI): say by whom instead of offering buttons.
  useEffect(() => {
    if (interaction.state !== 'answered' || done !== null || elsewhere !== undefined) return;
    findAnswer(interaction)
      .then(setElsewhere)
      .catch(() => setElsewhere(null));
  }, [interaction, done, elsewhere]);

  const send = async (answer: Parameters<typeof answerInteraction>[1], summary: string) => {
    setBusy(true);
    setError(null);
    try {
      const result = await answerInteraction(interaction, answer);
      if (result.ok) setDone(summary);
      else {
        setRefused(true);
        setElsewhere(result.elsewhere);
      }
      onAnswered?.();
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };

  const input = interaction.request.input ?? {};
  const heading = interaction.kind === 'question' ? 'Question' : `Approve ${interaction.toolName}?`;
  return (
    <article
      class={`interaction interaction-${interaction.kind}`}
      data-interaction={interaction.id}
      aria-label={heading}
    >
      <header>
        <strong>{heading}</strong> <span class="muted">asked {formatTime(interaction.createdAt)}</span>
      </header>
      {interaction.kind === 'approval' && <ToolInput toolName={interaction.toolName} input={input} />}
      {done !== null && (
        <p class="answered" role="status">
          You {done}.
        </p>
      )}
      {elsewhere !== undefined && (
        <p class="answered-elsewhere" role="status">
          Already answered
          {elsewhere
            ? ` by ${elsewhere.answeredBy ?? 'someone else'}: ${answerSummary(elsewhere.answer)}`
            : ''}
          {elsewhere?.answeredAt ? ` at ${formatTime(elsewhere.answeredAt)}` : ''}.
          {refused && ' The server refused a second answer (409 conflict): yours was not applied.'}
        </p>
      )}
      {error && (
        <p class="error-note" role="alert">
          {error}
        </p>
      )}
      {done === null &&
        elsewhere === undefined &&
        interaction.state === 'pending' &&
        interaction.kind === 'question' && (
          <QuestionForm input={input} busy={busy} onAnswer={(answers) => send({ answers }, 'answered')} />
        )}
      {done === null &&
        elsewhere === undefined &&
        interaction.state === 'pending' &&
        interaction.kind === 'approval' && (
          <div class="actions">
            {!denying && (
              <>
                <button
                  type="button"
                  class="approve"
                  disabled={busy}
                  onClick={() => send({ decision: 'approve' }, 'approved')}
                >
                  Approve
                </button>
                <button type="button" class="deny" disabled={busy} onClick={() => setDenying(true)}>
                  Deny…
                </button>
              </>
            )}
            {denying && (
              <form
                class="deny-form"
                onSubmit={(event) => {
                  event.preventDefault();
                  void send(
                    reason.trim() ? { decision: 'deny', reason: reason.trim() } : { decision: 'deny' },
                    'denied',
                  );
                }}
              >
                <label>
                  Reason for the agent
                  <input
                    type="text"
                    value={reason}
                    onInput={(event) => setReason(event.currentTarget.value)}
                    placeholder="why not, or what to do instead"
                    // biome-ignore lint/a11y/noAutofocus: the person just asked to write a reason.
                    autoFocus
                  />
                </label>
                <button type="submit" class="deny" disabled={busy}>
                  Deny
                </button>
                <button type="button" disabled={busy} onClick={() => setDenying(false)}>
                  Cancel
                </button>
              </form>
            )}
          </div>
        )}
    </article>
  );
}
