import type { BudgetStorage } from '../org-storage.js';
import { toBudgetRecord } from './org-rows.js';
import type { SqliteConnection } from './sqlite-connection.js';

/** Budgets on SQLite; spend is summed from the sessions' `cost_usd`. */
export function sqliteBudgets(connection: SqliteConnection): BudgetStorage {
  return {
    async setBudget(budget) {
      connection.write(() => {
        if (budget.limitUsd === null) {
          connection
            .statement('DELETE FROM budgets WHERE scope = ? AND target = ?')
            .run(budget.scope, budget.target);
          return;
        }
        connection
          .statement(
            `INSERT INTO budgets (scope, target, limit_usd, updated_at) VALUES (@scope, @target, @limitUsd, @now)
             ON CONFLICT (scope, target) DO UPDATE SET limit_usd = excluded.limit_usd,
               updated_at = excluded.updated_at`,
          )
          .run({ scope: budget.scope, target: budget.target, limitUsd: budget.limitUsd, now: budget.now });
      });
    },

    async getBudget(scope, target) {
      return connection.read(() => {
        const row = connection
          .statement('SELECT * FROM budgets WHERE scope = ? AND target = ?')
          .get(scope, target);
        return row === undefined ? null : toBudgetRecord(row);
      });
    },

    async listBudgets() {
      return connection.read(() =>
        connection.statement('SELECT * FROM budgets ORDER BY scope, target').all().map(toBudgetRecord),
      );
    },

    async spend(filter) {
      return connection.read(() => {
        let row: unknown;
        if ('sessionId' in filter) {
          row = connection
            .statement('SELECT TOTAL(cost_usd) AS total FROM sessions WHERE id = ?')
            .get(filter.sessionId);
        } else if ('role' in filter) {
          row = connection
            .statement('SELECT TOTAL(cost_usd) AS total FROM sessions WHERE organization = ? AND role = ?')
            .get(filter.organization, filter.role);
        } else {
          row = connection
            .statement('SELECT TOTAL(cost_usd) AS total FROM sessions WHERE organization = ?')
            .get(filter.organization);
        }
        return (row as { total: number }).total;
      });
    },
  };
}
