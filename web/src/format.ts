/** Small display helpers shared by the views. */

export function formatCost(usd: number): string {
  if (usd === 0) return '$0';
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

export function formatAgo(at: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours}h ago`;
  return new Date(at).toLocaleDateString();
}

export function formatTime(at: number): string {
  return new Date(at).toLocaleTimeString();
}

/** A client message id: the same id twice is the same message, so a retried send is harmless. */
export function newMessageId(): string {
  return `web-${crypto.randomUUID()}`;
}
