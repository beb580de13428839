import { ApiError } from '../api/client.js';

/** An API error as the server said it: its stable code and its message. */
export function ErrorNote({ error }: { error: Error }) {
  return (
    <p class="error-note" role="alert">
      {error instanceof ApiError && <code>{error.code}</code>} {error.message}
    </p>
  );
}
