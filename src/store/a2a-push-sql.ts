/**
 * For each push config, the first `perConfig` events of its task after its delivered position, in
 * order. One statement for SQLite and PostgreSQL; `perConfig` is the parameter in the dialect's form.
 */
export function pendingDeliveriesSql(perConfig: string): string {
  return `SELECT task_id, config_id, config, wire_version, config_created_at, seq, event_id, event, task, created_at
    FROM (SELECT c.task_id, c.id AS config_id, c.config, c.wire_version, c.created_at AS config_created_at,
                 c.seq AS config_seq, e.seq, e.event_id, e.event, e.task, e.created_at,
                 row_number() OVER (PARTITION BY c.seq ORDER BY e.seq) AS n
            FROM a2a_push_configs c
            JOIN a2a_push_events e ON e.task_id = c.task_id AND e.seq > c.delivered_seq
           WHERE e.event IS NOT NULL) pending
   WHERE n <= ${perConfig}
   ORDER BY config_seq, seq`;
}
