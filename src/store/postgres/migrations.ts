/**
 * The PostgreSQL schema, one numbered migration per entry: entry `i` brings the database to
 * `schema_version = i + 1`. Entries are append-only, as in the SQLite schema (src/store/sqlite/migrations.ts).
 *
 * The columns mirror the SQLite tables so the same row checks (src/store/sqlite/rows.ts) read both:
 * JSON is kept as TEXT (the stored form is what was written, key order included), times as BIGINT
 * epoch milliseconds, flags as 0/1 INTEGERs. Text that is ordered or compared is `COLLATE "C"`, so
 * listings sort by code point like SQLite does, whatever the database's locale.
 * Tables with an ordered listing keep a `seq BIGINT GENERATED ALWAYS AS IDENTITY`: it orders rows of
 * one listing only; event cursors are never taken from a sequence (see docs/decisions/0090).
 */
export const migrations: readonly string[] = [
  `
  CREATE TABLE sessions (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    state TEXT NOT NULL,
    provider TEXT NOT NULL,
    organization TEXT COLLATE "C",
    role TEXT COLLATE "C",
    role_version INTEGER,
    model TEXT,
    cwd TEXT NOT NULL,
    config TEXT NOT NULL,
    launch_id TEXT UNIQUE,
    native_session_id TEXT,
    title TEXT,
    cost_usd DOUBLE PRECISION NOT NULL DEFAULT 0,
    -- The cursor of the session's newest event, bumped (row-locked) in the transaction that inserts events.
    last_cursor BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  );
  CREATE INDEX sessions_by_state ON sessions (state, created_at);
  CREATE INDEX sessions_by_role ON sessions (organization, role);

  CREATE TABLE leases (
    session_id TEXT COLLATE "C" PRIMARY KEY REFERENCES sessions (id),
    -- NULL once released; the row stays so the next acquisition gets a higher epoch.
    owner TEXT,
    epoch BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    pid INTEGER,
    process_start_time TEXT
  );

  CREATE TABLE executions (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions (id),
    state TEXT NOT NULL,
    epoch BIGINT NOT NULL,
    pid INTEGER,
    process_start_time TEXT,
    error TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    ended_at BIGINT
  );
  CREATE INDEX executions_by_session ON executions (session_id);
  CREATE INDEX executions_by_state ON executions (state);

  CREATE TABLE inputs (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions (id),
    message_id TEXT COLLATE "C" NOT NULL,
    text TEXT NOT NULL,
    state TEXT NOT NULL,
    execution_id TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (session_id, message_id)
  );

  -- The unique (session_id, cursor) key is the last line of defence of gap-free, never-reused cursors.
  CREATE TABLE events (
    session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions (id),
    cursor BIGINT NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    execution_id TEXT,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (session_id, cursor)
  );

  CREATE TABLE interactions (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions (id),
    execution_id TEXT,
    kind TEXT NOT NULL,
    tool_name TEXT NOT NULL,
    tool_use_id TEXT,
    request TEXT NOT NULL,
    state TEXT NOT NULL,
    answer TEXT,
    created_at BIGINT NOT NULL,
    answered_at BIGINT
  );
  CREATE INDEX interactions_by_session ON interactions (session_id, state);
  CREATE INDEX interactions_by_state ON interactions (state);

  CREATE TABLE transcripts (
    project_key TEXT COLLATE "C" NOT NULL,
    session_id TEXT COLLATE "C" NOT NULL,
    subpath TEXT COLLATE "C" NOT NULL,
    mtime BIGINT NOT NULL,
    PRIMARY KEY (project_key, session_id, subpath)
  );

  CREATE TABLE transcript_entries (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project_key TEXT COLLATE "C" NOT NULL,
    session_id TEXT COLLATE "C" NOT NULL,
    subpath TEXT COLLATE "C" NOT NULL,
    uuid TEXT,
    entry TEXT NOT NULL
  );
  CREATE INDEX transcript_entries_by_key ON transcript_entries (project_key, session_id, subpath, seq);
  CREATE UNIQUE INDEX transcript_entries_by_uuid
    ON transcript_entries (project_key, session_id, subpath, uuid) WHERE uuid IS NOT NULL;

  CREATE TABLE a2a_tasks (
    id TEXT COLLATE "C" PRIMARY KEY,
    context_id TEXT COLLATE "C" NOT NULL,
    state TEXT NOT NULL,
    status_timestamp TEXT COLLATE "C" NOT NULL,
    task TEXT NOT NULL,
    updated_at BIGINT NOT NULL
  );
  CREATE INDEX a2a_tasks_by_time ON a2a_tasks (status_timestamp DESC, id DESC);
  CREATE INDEX a2a_tasks_by_context ON a2a_tasks (context_id, status_timestamp DESC, id DESC);
  CREATE INDEX a2a_tasks_by_state ON a2a_tasks (state);

  CREATE TABLE a2a_push_configs (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_id TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    config TEXT NOT NULL,
    wire_version TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (task_id, id)
  );

  CREATE TABLE providers (
    name TEXT COLLATE "C" PRIMARY KEY,
    kind TEXT NOT NULL,
    base_url TEXT,
    -- Where the secret comes from ({"env": ...} or {"file": ...}), never the secret.
    secret TEXT NOT NULL,
    models TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  );

  CREATE TABLE organizations (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    default_role TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  );

  CREATE TABLE role_versions (
    organization TEXT COLLATE "C" NOT NULL REFERENCES organizations (id),
    name TEXT COLLATE "C" NOT NULL,
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
    turn_budget_usd DOUBLE PRECISION,
    deleted INTEGER NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (organization, name, version)
  );

  CREATE TABLE channels (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key TEXT COLLATE "C" NOT NULL UNIQUE,
    organization TEXT COLLATE "C" NOT NULL,
    project TEXT NOT NULL,
    role TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  );
  CREATE INDEX channels_by_organization ON channels (organization, seq);

  CREATE TABLE channel_sessions (
    channel_key TEXT COLLATE "C" NOT NULL REFERENCES channels (key),
    role TEXT COLLATE "C" NOT NULL,
    session_id TEXT NOT NULL,
    PRIMARY KEY (channel_key, role)
  );

  CREATE TABLE principals (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    token_digest TEXT UNIQUE,
    created_at BIGINT NOT NULL
  );

  CREATE TABLE grants (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    principal TEXT COLLATE "C" NOT NULL REFERENCES principals (id),
    action TEXT COLLATE "C" NOT NULL,
    resource TEXT COLLATE "C" NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (principal, action, resource)
  );

  CREATE TABLE budgets (
    scope TEXT COLLATE "C" NOT NULL,
    target TEXT COLLATE "C" NOT NULL,
    limit_usd DOUBLE PRECISION NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (scope, target)
  );
  `,
  // Issue 10: A2A push notifications as a cluster duty: an outbox of each task's events and each
  // config's delivery progress, so a node taking the duty over continues where the last one stopped.
  `
  ALTER TABLE a2a_push_configs ADD COLUMN delivered_seq BIGINT NOT NULL DEFAULT 0;
  CREATE TABLE a2a_push_events (
    task_id TEXT COLLATE "C" NOT NULL,
    seq BIGINT NOT NULL,
    event_id TEXT COLLATE "C" NOT NULL,
    -- Cleared once every config of the task is past it: the id stays, to deduplicate replays.
    event TEXT,
    task TEXT,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (task_id, seq),
    UNIQUE (task_id, event_id)
  );
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
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id TEXT COLLATE "C" NOT NULL,
    kind TEXT COLLATE "C" NOT NULL,
    ref TEXT COLLATE "C" NOT NULL,
    channel_key TEXT COLLATE "C" NOT NULL,
    message_id TEXT COLLATE "C" NOT NULL,
    cursor BIGINT NOT NULL,
    done BOOLEAN NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (session_id, kind, ref)
  );
  CREATE INDEX chat_messages_open ON chat_messages (done, channel_key);
  `,
  // Schedules and their firings; webhooks, their deliveries and attempts (issue 16).
  `
  CREATE TABLE schedules (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    organization TEXT COLLATE "C" NOT NULL,
    cron TEXT NOT NULL,
    timezone TEXT NOT NULL,
    target TEXT NOT NULL,
    prompt TEXT NOT NULL,
    cwd TEXT,
    missed TEXT NOT NULL,
    state TEXT NOT NULL,
    next_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  );
  CREATE INDEX schedules_due ON schedules (state, next_at);

  CREATE TABLE schedule_firings (
    schedule_id TEXT COLLATE "C" NOT NULL,
    occurrence BIGINT NOT NULL,
    state TEXT NOT NULL,
    missed BIGINT NOT NULL,
    session_id TEXT,
    error TEXT,
    claimed_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (schedule_id, occurrence)
  );

  CREATE TABLE webhooks (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    organization TEXT COLLATE "C" NOT NULL,
    session_id TEXT,
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    secret_env TEXT NOT NULL,
    state TEXT NOT NULL,
    disabled_reason TEXT,
    failures BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  );

  CREATE TABLE webhook_deliveries (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    webhook_id TEXT COLLATE "C" NOT NULL,
    session_id TEXT NOT NULL,
    cursor BIGINT NOT NULL,
    event_type TEXT NOT NULL,
    payload TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts BIGINT NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    claimed_until BIGINT,
    last_error TEXT,
    created_at BIGINT NOT NULL,
    delivered_at BIGINT,
    UNIQUE (webhook_id, session_id, cursor)
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at);
  CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, seq);

  CREATE TABLE webhook_attempts (
    delivery_id TEXT COLLATE "C" NOT NULL,
    attempt BIGINT NOT NULL,
    started_at BIGINT NOT NULL,
    duration_ms BIGINT NOT NULL,
    status BIGINT,
    ok BIGINT NOT NULL,
    error TEXT,
    PRIMARY KEY (delivery_id, attempt)
  );
  `,
  `
  CREATE TABLE permission_rules (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT COLLATE "C" NOT NULL UNIQUE,
    scope TEXT COLLATE "C" NOT NULL,
    target TEXT COLLATE "C" NOT NULL,
    rule TEXT NOT NULL,
    decision TEXT COLLATE "C" NOT NULL,
    interaction_id TEXT COLLATE "C",
    created_by TEXT,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
  );
  CREATE INDEX permission_rules_by_target ON permission_rules (scope, target);
  `,
];
