import { get } from '../api/client.js';
import type { Attention, Interaction, SessionOverview } from '../api/types.js';
import { formatAgo, formatCost } from '../format.js';
import { href } from '../router.js';
import { usePoll } from '../use-poll.js';
import { ErrorNote } from './error-note.js';
import { InteractionCard } from './interaction-card.js';

const groups: Array<{ id: string; title: string; attention: Attention[] }> = [
  { id: 'needs-you', title: 'Needs you', attention: ['needs_you'] },
  { id: 'working', title: 'Working', attention: ['working'] },
  { id: 'idle', title: 'Idle', attention: ['idle', 'hibernated'] },
  { id: 'finished', title: 'Finished or failed', attention: ['finished', 'failed'] },
  { id: 'archived', title: 'Archived', attention: ['archived'] },
];

interface InboxData {
  sessions: SessionOverview[];
  pending: Interaction[];
}

async function loadInbox(): Promise<InboxData> {
  const [overview, interactions] = await Promise.all([
    get<{ sessions: SessionOverview[] }>('/v1/sessions/overview?limit=500'),
    get<{ interactions: Interaction[] }>('/v1/interactions?state=pending'),
  ]);
  return { sessions: overview.sessions, pending: interactions.interactions };
}

/** The landing page: every session, grouped by what it needs, refreshed while it is open. */
export function Inbox() {
  const { data, error, refresh } = usePoll(loadInbox, 1500);
  if (!data) return error ? <ErrorNote error={error} /> : <p class="muted">Loading…</p>;
  return (
    <div class="inbox">
      {error && <ErrorNote error={error} />}
      <nav class="group-counts" aria-label="Session groups">
        {groups.map((group) => {
          const count = data.sessions.filter((row) => group.attention.includes(row.attention)).length;
          return (
            <button
              key={group.id}
              type="button"
              onClick={() => jump(group.id)}
              class={`count count-${group.id}`}
              disabled={count === 0}
            >
              {group.title} <span data-testid={`count-${group.id}`}>{count}</span>
            </button>
          );
        })}
      </nav>
      {data.sessions.length === 0 && (
        <p class="empty">
          No sessions yet. <a href={href.new()}>Start one</a>.
        </p>
      )}
      {groups.map((group) => {
        const rows = data.sessions.filter((row) => group.attention.includes(row.attention));
        if (rows.length === 0) return null;
        return (
          <section
            key={group.id}
            id={`group-${group.id}`}
            class={`group group-${group.id}`}
            aria-labelledby={`heading-${group.id}`}
          >
            <h2 id={`heading-${group.id}`}>
              {group.title} <span class="badge">{rows.length}</span>
            </h2>
            <ul class="rows">
              {rows.map((row) => (
                <SessionRow
                  key={row.session.id}
                  row={row}
                  pending={data.pending.filter((interaction) => interaction.sessionId === row.session.id)}
                  onAnswered={refresh}
                />
              ))}
            </ul>
          </section>
        );
      })}
    </div>
  );
}

function jump(id: string) {
  document.getElementById(`group-${id}`)?.scrollIntoView({ behavior: 'smooth' });
}

const attentionLabel: Record<Attention, string> = {
  needs_you: 'needs you',
  working: 'working',
  idle: 'idle',
  hibernated: 'hibernated',
  finished: 'finished',
  failed: 'failed',
  archived: 'archived',
};

function SessionRow(props: { row: SessionOverview; pending: Interaction[]; onAnswered: () => void }) {
  const { row } = props;
  const { session } = row;
  return (
    <li class={`session-row attention-${row.attention}`} data-session={session.id}>
      <a class="session-link" href={href.session(session.id)}>
        <span class="title">{row.title ?? '(no prompt yet)'}</span>
        <span class="meta">
          <span class={`state state-${row.attention}`}>{attentionLabel[row.attention]}</span>
          <span>{session.role ?? 'no role'}</span>
          <span>{session.model ?? 'default model'}</span>
          <span title={new Date(row.lastActivityAt).toLocaleString()}>{formatAgo(row.lastActivityAt)}</span>
          <span class="cost">{formatCost(session.costUsd)}</span>
        </span>
      </a>
      {props.pending.length > 0 && (
        <div class="row-interactions">
          {props.pending.map((interaction) => (
            <InteractionCard key={interaction.id} interaction={interaction} onAnswered={props.onAnswered} />
          ))}
        </div>
      )}
    </li>
  );
}
