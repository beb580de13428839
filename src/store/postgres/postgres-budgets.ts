import type { BudgetStorage } from '../org-storage.js';
import { toBudgetRecord } from '../sqlite/org-rows.js';
import type { PostgresConnection } from './postgres-connection.js';

/** Budgets on PostgreSQL; spend is summed from the sessions' `cost_usd`. */
export function postgresBudgets(connection: PostgresConnection): BudgetStorage {
  return {
    async setBudget(budget) {
      await connection.write(async (executor) => {
        if (budget.limitUsd === null) {
          await executor.run('DELETE FROM budgets WHERE scope = $1 AND target = $2', [
            budget.scope,
            budget.target,
          ]);
          return;
        }
        await executor.run(
          `INSERT INTO budgets (scope, target, limit_usd, updated_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (scope, target) DO UPDATE SET limit_usd = excluded.limit_usd, updated_at = excluded.updated_at`,
          [budget.scope, budget.target, budget.limitUsd, budget.now],
        );
      });
    },

    async getBudget(scope, target) {
      return connection.read(async (executor) => {
        const row = await executor.row('SELECT * FROM budgets WHERE scope = $1 AND target = $2', [
          scope,
          target,
        ]);
        return row === undefined ? null : toBudgetRecord(row);
      });
    },

    async listBudgets() {
      return connection.read(async (executor) =>
        (await executor.rows('SELECT * FROM budgets ORDER BY scope, target')).map(toBudgetRecord),
      );
    },

    async spend(filter) {
      return connection.read(async (executor) => {
        const total = 'COALESCE(SUM(cost_usd), 0)::double precision AS total';
        let row: Record<string, unknown> | undefined;
        if ('sessionId' in filter) {
          row = await executor.row(`SELECT ${total} FROM sessions WHERE id = $1`, [filter.sessionId]);
        } else if ('role' in filter) {
          row = await executor.row(`SELECT ${total} FROM sessions WHERE organization = $1 AND role = $2`, [
            filter.organization,
            filter.role,
          ]);
        } else {
          row = await executor.row(`SELECT ${total} FROM sessions WHERE organization = $1`, [
            filter.organization,
          ]);
        }
        return Number(row?.total ?? 0);
      });
    },
  };
}
