/**
 * The SQLite schema, one numbered migration per entry: entry `i` brings the file to
 * `schema_version = i + 1`. Entries are append-only: a released migration is never edited, because
 * data files in the field already ran it.
 *
 * Tables are STRICT so a wrong type is refused at write time instead of surfacing on read.
 * Tables with an ordered listing keep an `seq INTEGER PRIMARY KEY` (the rowid) so listings come
 * back in insertion order even when two rows share a millisecond.
 */
export const migrations: readonly string[] = [
  `
  CREATE TABLE sessions (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    state TEXT NOT NULL,
    provider TEXT NOT NULL,
    role TEXT,
    model TEXT,
    cwd TEXT NOT NULL,
    config TEXT NOT NULL,
    launch_id TEXT UNIQUE,
    native_session_id TEXT,
    title TEXT,
    -- The cursor of the session's newest event, bumped in the same transaction that inserts events.
    last_cursor INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX sessions_by_state ON sessions (state, created_at);

  CREATE TABLE leases (
    session_id TEXT PRIMARY KEY REFERENCES sessions (id),
    -- NULL once released; the row stays so the next acquisition gets a higher epoch.
    owner TEXT,
    epoch INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    pid INTEGER,
    process_start_time TEXT
  ) STRICT;

  CREATE TABLE executions (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    session_id TEXT NOT NULL REFERENCES sessions (id),
    state TEXT NOT NULL,
    epoch INTEGER NOT NULL,
    pid INTEGER,
    process_start_time TEXT,
    error TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    ended_at INTEGER
  ) STRICT;
  CREATE INDEX executions_by_session ON executions (session_id);
  CREATE INDEX executions_by_state ON executions (state);

  CREATE TABLE inputs (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    session_id TEXT NOT NULL REFERENCES sessions (id),
    message_id TEXT NOT NULL,
    text TEXT NOT NULL,
    state TEXT NOT NULL,
    execution_id TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (session_id, message_id)
  ) STRICT;

  CREATE TABLE events (
    session_id TEXT NOT NULL REFERENCES sessions (id),
    cursor INTEGER NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    execution_id TEXT,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, cursor)
  ) STRICT;

  CREATE TABLE interactions (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    session_id TEXT NOT NULL REFERENCES sessions (id),
    execution_id TEXT,
    kind TEXT NOT NULL,
    tool_name TEXT NOT NULL,
    tool_use_id TEXT,
    request TEXT NOT NULL,
    state TEXT NOT NULL,
    answer TEXT,
    created_at INTEGER NOT NULL,
    answered_at INTEGER
  ) STRICT;
  CREATE INDEX interactions_by_session ON interactions (session_id, state);
  CREATE INDEX interactions_by_state ON interactions (state);

  -- One row per transcript key (subpath '' is the main transcript): it exists once the key was
  -- written, so load() can tell "never written" (null) from "written with no entries" ([]).
  CREATE TABLE transcripts (
    project_key TEXT NOT NULL,
    session_id TEXT NOT NULL,
    subpath TEXT NOT NULL,
    mtime INTEGER NOT NULL,
    PRIMARY KEY (project_key, session_id, subpath)
  ) STRICT;

  CREATE TABLE transcript_entries (
    seq INTEGER PRIMARY KEY,
    project_key TEXT NOT NULL,
    session_id TEXT NOT NULL,
    subpath TEXT NOT NULL,
    uuid TEXT,
    entry TEXT NOT NULL
  ) STRICT;
  CREATE INDEX transcript_entries_by_key ON transcript_entries (project_key, session_id, subpath, seq);
  -- The SDK retries appends and replays imports: an entry's uuid is its idempotency key.
  CREATE UNIQUE INDEX transcript_entries_by_uuid
    ON transcript_entries (project_key, session_id, subpath, uuid) WHERE uuid IS NOT NULL;
  `,
  // A2A tasks and push notification configs (src/server/a2a), kept as the protocol's JSON form.
  `
  CREATE TABLE a2a_tasks (
    id TEXT PRIMARY KEY,
    context_id TEXT NOT NULL,
    -- The state's wire name, such as TASK_STATE_WORKING.
    state TEXT NOT NULL,
    -- ISO 8601 time of the latest status, '' when none: listings are newest first by it.
    status_timestamp TEXT NOT NULL,
    task TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX a2a_tasks_by_time ON a2a_tasks (status_timestamp DESC, id DESC);
  CREATE INDEX a2a_tasks_by_context ON a2a_tasks (context_id, status_timestamp DESC, id DESC);
  CREATE INDEX a2a_tasks_by_state ON a2a_tasks (state);

  CREATE TABLE a2a_push_configs (
    seq INTEGER PRIMARY KEY,
    task_id TEXT NOT NULL,
    id TEXT NOT NULL,
    config TEXT NOT NULL,
    wire_version TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (task_id, id)
  ) STRICT;
  `,
  // Issue 8: provider profiles, organizations, versioned roles, channels, principals and grants,
  // budgets; sessions record their organization, role version and cost.
  // ALTER TABLE ADD COLUMN on a STRICT table: a declared type, and NOT NULL only with a default.
  `
  ALTER TABLE sessions ADD COLUMN organization TEXT;
  ALTER TABLE sessions ADD COLUMN role_version INTEGER;
  ALTER TABLE sessions ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0;
  CREATE INDEX sessions_by_role ON sessions (organization, role);

  CREATE TABLE providers (
    name TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    base_url TEXT,
    -- Where the secret comes from ({"env": ...} or {"file": ...}), never the secret.
    secret TEXT NOT NULL,
    models TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE organizations (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    default_role TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;

  -- Every version of every role; a role's current version is its highest one, deleted when that
  -- version is marked so.
  CREATE TABLE role_versions (
    organization TEXT NOT NULL REFERENCES organizations (id),
    name TEXT NOT NULL,
    version INTEGER NOT NULL,
    provider TEXT NOT NULL,
    model TEXT,
    system_prompt TEXT,
    tools TEXT,
    permission_mode TEXT,
    skills TEXT NOT NULL,
    user_skills INTEGER NOT NULL,
    label TEXT NOT NULL,
    ordering INTEGER NOT NULL,
    turn_budget_usd REAL,
    deleted INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (organization, name, version)
  ) STRICT;

  CREATE TABLE channels (
    seq INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    organization TEXT NOT NULL,
    project TEXT NOT NULL,
    role TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX channels_by_organization ON channels (organization, seq);

  CREATE TABLE channel_sessions (
    channel_key TEXT NOT NULL REFERENCES channels (key),
    role TEXT NOT NULL,
    session_id TEXT NOT NULL,
    PRIMARY KEY (channel_key, role)
  ) STRICT;

  CREATE TABLE principals (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    token_digest TEXT UNIQUE,
    created_at INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE grants (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    principal TEXT NOT NULL REFERENCES principals (id),
    action TEXT NOT NULL,
    resource TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (principal, action, resource)
  ) STRICT;

  CREATE TABLE budgets (
    scope TEXT NOT NULL,
    target TEXT NOT NULL,
    limit_usd REAL NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (scope, target)
  ) STRICT;
  `,
  // Issue 10: A2A push notifications: an outbox of each task's events and each config's delivery
  // progress (docs/decisions/0091-a2a-push-as-a-cluster-duty.md).
  `
  ALTER TABLE a2a_push_configs ADD COLUMN delivered_seq INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE a2a_push_events (
    task_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    event_id TEXT NOT NULL,
    -- Cleared once every config of the task is past it: the id stays, to deduplicate replays.
    event TEXT,
    task TEXT,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (task_id, seq),
    UNIQUE (task_id, event_id)
  ) STRICT;
  `,
  `
  ALTER TABLE role_versions ADD COLUMN warm_pool INTEGER;
  `,
  // Issue 14: a role names the backend its sessions run on (claude unless it says codex).
  `
  ALTER TABLE role_versions ADD COLUMN backend TEXT NOT NULL DEFAULT 'claude';
  `,
  `
  CREATE TABLE chat_messages (
    seq INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    ref TEXT NOT NULL,
    channel_key TEXT NOT NULL,
    message_id TEXT NOT NULL,
    cursor INTEGER NOT NULL,
    done INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (session_id, kind, ref)
  ) STRICT;
  CREATE INDEX chat_messages_open ON chat_messages (done, channel_key);
  `,
  // Schedules and their firings; webhooks, their deliveries and attempts (issue 16).
  `
  CREATE TABLE schedules (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    organization TEXT NOT NULL,
    cron TEXT NOT NULL,
    timezone TEXT NOT NULL,
    target TEXT NOT NULL,
    prompt TEXT NOT NULL,
    cwd TEXT,
    missed TEXT NOT NULL,
    state TEXT NOT NULL,
    next_at INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX schedules_due ON schedules (state, next_at);

  CREATE TABLE schedule_firings (
    schedule_id TEXT NOT NULL,
    occurrence INTEGER NOT NULL,
    state TEXT NOT NULL,
    missed INTEGER NOT NULL,
    session_id TEXT,
    error TEXT,
    claimed_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (schedule_id, occurrence)
  ) STRICT;

  CREATE TABLE webhooks (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    organization TEXT NOT NULL,
    session_id TEXT,
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    secret_env TEXT NOT NULL,
    state TEXT NOT NULL,
    disabled_reason TEXT,
    failures INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE webhook_deliveries (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    webhook_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    cursor INTEGER NOT NULL,
    event_type TEXT NOT NULL,
    payload TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    next_attempt_at INTEGER NOT NULL,
    claimed_until INTEGER,
    last_error TEXT,
    created_at INTEGER NOT NULL,
    delivered_at INTEGER,
    UNIQUE (webhook_id, session_id, cursor)
  ) STRICT;
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at);
  CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, seq);

  CREATE TABLE webhook_attempts (
    delivery_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    started_at INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    status INTEGER,
    ok INTEGER NOT NULL,
    error TEXT,
    PRIMARY KEY (delivery_id, attempt)
  ) STRICT;
  `,
  `
  CREATE TABLE permission_rules (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    scope TEXT NOT NULL,
    target TEXT NOT NULL,
    rule TEXT NOT NULL,
    decision TEXT NOT NULL,
    interaction_id TEXT,
    created_by TEXT,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  ) STRICT;
  CREATE INDEX permission_rules_by_target ON permission_rules (scope, target);
  `,
];
