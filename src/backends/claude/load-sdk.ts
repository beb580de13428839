type Sdk = typeof import('@anthropic-ai/claude-agent-sdk');

let sdkPromise: Promise<Sdk> | undefined;

/** The SDK is imported on first use, so that loading agentd does not load it. */
export function loadSdk(): Promise<Sdk> {
  sdkPromise ??= import('@anthropic-ai/claude-agent-sdk');
  return sdkPromise;
}
