import * as v from 'valibot';

/** One line for an error message: the first issue valibot found, after the field it is at. */
export function firstIssue(issues: readonly [v.BaseIssue<unknown>, ...v.BaseIssue<unknown>[]]): string {
  const [issue] = issues;
  const path = v.getDotPath(issue);
  return path ? `${path}: ${issue.message}` : issue.message;
}
