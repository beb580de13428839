/**
 * The backends an end-to-end test can run its sessions on, for the runtime tests whose behaviour
 * is the same on both (`describe.each(backends)`): each backend's scripted server and the
 * environment its sessions need. Both servers read the same script vocabulary (`{ text }`, a slow
 * reply with `chunkDelayMs`, `{ error: { status } }`), so a test scripts both alike.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BackendName } from '../../../src/backends/agent-backend.js';
import {
  type Script,
  type ScriptedModel,
  startScriptedModel,
  startScriptedResponses,
} from '../../../src/testing/index.js';
import type { Env } from '../isolated-env.js';

/** Both backends, for `describe.each`. */
export const backends = ['claude', 'codex'] as const satisfies readonly BackendName[];

/** The backend's scripted server: the Anthropic Messages one for `claude`, the Responses one for `codex`. */
export function startBackendModel(backend: BackendName, script: Script): Promise<ScriptedModel> {
  return backend === 'codex' ? startScriptedResponses({ script }) : startScriptedModel({ script });
}

/**
 * What the backend's sessions need in the environment besides the model's URL and key: for Codex a
 * private `CODEX_HOME` (its threads' rollout files) inside the test's home, created here.
 */
export function backendEnv(backend: BackendName, root: string): Env {
  if (backend !== 'codex') return {};
  const codexHome = join(root, 'home', '.codex');
  mkdirSync(codexHome, { recursive: true });
  return { CODEX_HOME: codexHome };
}
