import { useState } from 'preact/hooks';
import { post } from '../api/client.js';
import { newMessageId } from '../format.js';

/**
 * Sends a message. The message id is chosen once per text: a send that failed on the way (or a
 * double click) is retried under the same id, which the server answers with the same input.
 */
export function Composer(props: { sessionId: string; disabled: boolean; onSent: () => void }) {
  const [text, setText] = useState('');
  const [messageId, setMessageId] = useState(newMessageId);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const send = async () => {
    if (!text.trim() || busy) return;
    setBusy(true);
    setError(null);
    try {
      await post(`/v1/sessions/${encodeURIComponent(props.sessionId)}/messages`, { text, messageId });
      setText('');
      setMessageId(newMessageId());
      props.onSent();
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="composer"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      <label class="visually-hidden" for="composer-text">
        Message
      </label>
      <textarea
        id="composer-text"
        value={text}
        rows={2}
        disabled={props.disabled}
        placeholder={props.disabled ? 'This session is archived' : 'Message the agent (Ctrl+Enter sends)'}
        onInput={(event) => {
          setText(event.currentTarget.value);
          // Other text is another message: it gets its own id.
          setMessageId(newMessageId());
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            void send();
          }
        }}
      />
      <button type="submit" disabled={props.disabled || busy || !text.trim()}>
        Send
      </button>
      {error && (
        <p class="error-note" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
