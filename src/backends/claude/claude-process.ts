import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import type { SpawnedProcess, SpawnOptions } from '@anthropic-ai/claude-agent-sdk';
import { removeResumeDir, resumeDirOf, trackResumeDir } from './resume-dirs.js';

export interface ClaudeProcessOptions {
  /** Receives `claude`'s stderr as it comes. */
  onStderr?: (chunk: string) => void;
  /** The process could not be started at all (bad working directory, missing executable). */
  onSpawnFailed: (error: Error) => void;
  /** The process was started: its PID (the same as claude's, setpriv execs it). */
  onSpawned?: (pid: number) => void;
}

/** util-linux's `setpriv`, where the system has it: it sets a parent-death signal, then execs. */
const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find(isExecutable);

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts `claude` for the SDK (its `spawnClaudeCodeProcess`) so that it dies with its worker: the
 * real executable, exec'd by `setpriv --pdeathsig KILL`, gets SIGKILL from the kernel the moment
 * the worker dies, however it dies, and cannot finish a turn with nothing journaled. Where setpriv
 * is absent, `claude` is started as the SDK would, and the supervisor's reconcile ends it instead.
 */
export function claudeSpawner(options: ClaudeProcessOptions): (spawnOptions: SpawnOptions) => SpawnedProcess {
  return ({ command, args, cwd, env, signal }) => {
    // Only an executable we can see is wrapped: a missing one fails the spawn itself, as without setpriv.
    const [file, argv] =
      setpriv && process.platform === 'linux' && isExecutable(command)
        ? [setpriv, ['--pdeathsig', 'KILL', '--', command, ...args]]
        : [command, args];
    const child = spawn(file, argv, { cwd, env, signal, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    child.once('error', (error) => {
      // An error with no process behind it: nothing was started, nothing was written to it.
      if (child.pid === undefined) options.onSpawnFailed(error);
    });
    if (child.pid !== undefined) options.onSpawned?.(child.pid);
    const resumeDir = resumeDirOf(env);
    if (resumeDir) {
      trackResumeDir(resumeDir);
      child.once('close', () => removeResumeDir(resumeDir));
    }
    // stderr must be read, or claude blocks once the pipe is full.
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => options.onStderr?.(chunk));
    return child;
  };
}
