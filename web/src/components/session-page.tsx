import { useEffect, useRef, useState } from 'preact/hooks';
import { get, post } from '../api/client.js';
import { followEvents, type StreamState } from '../api/event-stream.js';
import type { Input, Interaction, JournalEvent, SessionDetails } from '../api/types.js';
import { formatCost } from '../format.js';
import { TimelineModel } from '../timeline/timeline-model.js';
import { Composer } from './composer.js';
import { ErrorNote } from './error-note.js';
import { InteractionCard } from './interaction-card.js';
import { TimelineRow } from './timeline-row.js';
import { VirtualList } from './virtual-list.js';

/** Events that change what the header and the pending panel show. */
const refreshOn = new Set([
  'interaction.requested',
  'interaction.answered',
  'execution.started',
  'execution.stopped',
  'execution.failed',
  'work.settled',
  'agent.turn.completed',
  'session.archived',
]);

/** One session: its live timeline, what waits for an answer, and what can be done to it. */
export function SessionPage({ id }: { id: string }) {
  const [details, setDetails] = useState<SessionDetails | null>(null);
  const [pending, setPending] = useState<Interaction[]>([]);
  const [error, setError] = useState<Error | null>(null);
  const [stream, setStream] = useState<{ state: StreamState; detail?: string }>({ state: 'connecting' });
  const [version, setVersion] = useState(0);
  const model = useRef<TimelineModel | null>(null);

  const reload = async () => {
    try {
      const [session, interactions] = await Promise.all([
        get<SessionDetails>(`/v1/sessions/${encodeURIComponent(id)}`),
        get<{ interactions: Interaction[] }>(
          `/v1/interactions?state=pending&sessionId=${encodeURIComponent(id)}`,
        ),
      ]);
      setDetails(session);
      // A card that was shown stays, marked answered, so the person sees who answered it.
      setPending((shown) => {
        const open = new Set(interactions.interactions.map((interaction) => interaction.id));
        const settled = shown
          .filter((interaction) => !open.has(interaction.id))
          .map((interaction) => ({ ...interaction, state: 'answered' as const }));
        return [...interactions.interactions, ...settled];
      });
      setError(null);
      return session;
    } catch (caught) {
      setError(caught instanceof Error ? caught : new Error(String(caught)));
      return null;
    }
  };

  useEffect(() => {
    let closed = false;
    let follower: { close(): void } | null = null;
    model.current = null;
    setVersion(0);
    void reload().then((session) => {
      if (closed || !session) return;
      model.current = new TimelineModel(new Map(session.inputs.map((input: Input) => [input.id, input])));
      // Batched per frame: a long journal arrives in large chunks and draws once per frame.
      let queued: JournalEvent[] = [];
      let frame = 0;
      let refresh: ReturnType<typeof setTimeout> | undefined;
      follower = followEvents({
        sessionId: id,
        onEvents: (events) => {
          queued.push(...events);
          if (events.some((event) => refreshOn.has(event.type))) {
            clearTimeout(refresh);
            refresh = setTimeout(() => void reload(), 150);
          }
          if (frame) return;
          frame = requestAnimationFrame(() => {
            frame = 0;
            model.current?.apply(queued);
            queued = [];
            setVersion(model.current?.version ?? 0);
          });
        },
        onState: (state, detail) => setStream(detail === undefined ? { state } : { state, detail }),
      });
    });
    return () => {
      closed = true;
      follower?.close();
    };
  }, [id]);

  if (!details) return error ? <ErrorNote error={error} /> : <p class="muted">Loading…</p>;
  const { session, live } = details;
  const title =
    session.title ?? (typeof session.config.initialPrompt === 'string' ? session.config.initialPrompt : null);
  const act = async (action: 'stop' | 'interrupt' | 'resume') => {
    try {
      await post(`/v1/sessions/${encodeURIComponent(id)}/${action}`);
      setError(null);
    } catch (caught) {
      setError(caught instanceof Error ? caught : new Error(String(caught)));
    }
    void reload();
  };
  const items = model.current?.items ?? [];
  return (
    <div class="session-page">
      <header class="session-header">
        <h1 class="session-title">{title ?? session.id}</h1>
        <p class="meta">
          <span class={`state state-${live ? live.state : session.state}`} data-testid="session-state">
            {session.state === 'archived'
              ? 'archived'
              : live
                ? live.state
                : details.hibernated
                  ? 'hibernated'
                  : 'no worker'}
          </span>
          <span>{session.role ?? 'no role'}</span>
          <span>{session.model ?? 'default model'}</span>
          <span class="cost" data-testid="session-cost">
            {formatCost(session.costUsd)}
          </span>
          <span class={`stream stream-${stream.state}`} data-testid="stream-state" title={stream.detail}>
            {stream.state === 'open' ? 'live' : stream.state}
          </span>
        </p>
        <div class="controls">
          <button type="button" onClick={() => act('interrupt')} disabled={!live}>
            Interrupt
          </button>
          <button type="button" onClick={() => act('stop')} disabled={!live}>
            Stop
          </button>
          <button
            type="button"
            onClick={() => act('resume')}
            disabled={!!live || session.state === 'archived'}
          >
            Resume
          </button>
        </div>
      </header>
      {error && <ErrorNote error={error} />}
      {pending.length > 0 && (
        <section class="pending" aria-label="Waiting for you">
          {pending.map((interaction) => (
            <InteractionCard
              key={interaction.id}
              interaction={interaction}
              onAnswered={() => void reload()}
            />
          ))}
        </section>
      )}
      <VirtualList
        label="Session timeline"
        items={items}
        version={version}
        keyOf={(item) => item.key}
        render={(item) => <TimelineRow item={item} />}
      />
      <Composer sessionId={id} disabled={session.state === 'archived'} onSent={() => void reload()} />
    </div>
  );
}
