import { parsePermissionRule, ruleMatches } from '../../permissions/permission-rule.js';
import type { PermissionDecision } from '../agent-backend.js';
import { innerCommand } from './command-line.js';
import { codexToolNames } from './convert.js';
import {
  type ApprovalDecision,
  approvalMethods,
  type CommandApprovalParams,
  type FileChangeApprovalParams,
  type ThreadItem,
} from './protocol.js';

/** One approval codex asks for, in agentd's words: what `canUseTool` is asked. */
export interface CodexApproval {
  toolName: string;
  /** The model's call id: the command or file change item's id. */
  toolUseId: string;
  input: Record<string, unknown>;
  turnId: string;
  /** One line for the model when a person's reason goes back to it. */
  summary: string;
}

/**
 * The approval a server request asks for, or null when it is no approval request. A command's input
 * is what the agent asked to run (`command`, which permission rules such as `shell(npm test:*)`
 * match), the shell line codex runs (`commandLine`), its working directory and codex's reason
 * (set when the command asks to leave the sandbox). A file change's input names its files.
 */
export function approvalOf(
  method: string,
  params: unknown,
  items: ReadonlyMap<string, ThreadItem>,
): CodexApproval | null {
  if (method === approvalMethods.commandExecution) {
    const request = params as CommandApprovalParams & { approvalId?: string | null };
    const commandLine = request.command ?? '';
    const command = innerCommand(commandLine);
    return {
      toolName: codexToolNames.commandExecution,
      // Codex may ask more than once for one command (one callback per subcommand): each is its own.
      toolUseId: request.approvalId ? `${request.itemId}/${request.approvalId}` : request.itemId,
      input: {
        command,
        commandLine,
        ...(request.cwd ? { cwd: request.cwd } : {}),
        ...(request.reason ? { reason: request.reason } : {}),
      },
      turnId: request.turnId,
      summary: `shell: ${command}`,
    };
  }
  if (method === approvalMethods.fileChange) {
    const request = params as FileChangeApprovalParams;
    const item = items.get(request.itemId);
    const changes =
      item?.type === 'fileChange'
        ? item.changes.map((change) => ({ path: change.path, kind: change.kind.type }))
        : [];
    return {
      toolName: codexToolNames.fileChange,
      toolUseId: request.itemId,
      input: {
        changes,
        ...(request.reason ? { reason: request.reason } : {}),
        ...(request.grantRoot ? { grantRoot: request.grantRoot } : {}),
      },
      turnId: request.turnId,
      summary: `apply_patch: ${changes.map((change) => change.path).join(', ') || request.itemId}`,
    };
  }
  return null;
}

/** The model's call id a tool use id stands for (an approval of a subcommand carries `/approvalId`). */
export function callIdOf(toolUseId: string): string {
  return toolUseId.split('/')[0] ?? toolUseId;
}

/**
 * What codex is told: `accept` runs it once (never `acceptForSession`: agentd's own persisted,
 * revocable rules decide the later uses, and codex asks for each), `decline` refuses it and the
 * turn goes on, `cancel` refuses it and ends the turn (an interrupt won).
 */
export function codexDecision(decision: PermissionDecision): ApprovalDecision {
  if (decision.behavior === 'allow') return 'accept';
  return decision.interrupt ? 'cancel' : 'decline';
}

/** Whether one of the session's allowed tools (permission rules, `shell(git status)`) covers the use. */
export function allowedByTools(
  allowedTools: string[] | undefined,
  toolName: string,
  input: Record<string, unknown>,
): boolean {
  for (const text of allowedTools ?? []) {
    try {
      if (ruleMatches(parsePermissionRule(text), toolName, input)) return true;
    } catch {
      // Not a rule agentd can match (Claude-only syntax): it covers nothing here.
    }
  }
  return false;
}

/** What the model reads when a person denied a tool use with a reason of their own. */
export function denialNote(summary: string, reason: string): string {
  return `[agentd] The person denied ${summary}. Their reason: ${reason}`;
}
