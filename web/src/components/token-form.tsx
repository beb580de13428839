import { useState } from 'preact/hooks';
import { setToken } from '../api/client.js';

/** Asks for the server's bearer token; it is kept in this tab's sessionStorage only. */
export function TokenForm(props: { refused: boolean; onSaved: () => void }) {
  const [value, setValue] = useState('');
  return (
    <form
      class="token-form"
      onSubmit={(event) => {
        event.preventDefault();
        setToken(value.trim());
        props.onSaved();
      }}
    >
      <h1>This agentd server wants a token</h1>
      {props.refused && (
        <p class="error-note" role="alert">
          The server refused the token (401 unauthorized). Nothing can be shown or changed without a valid
          one.
        </p>
      )}
      <label>
        Bearer token
        <input
          type="password"
          autocomplete="off"
          value={value}
          onInput={(event) => setValue(event.currentTarget.value)}
          // biome-ignore lint/a11y/noAutofocus: the only thing on the page.
          autoFocus
        />
      </label>
      <button type="submit" disabled={!value.trim()}>
        Use token
      </button>
      <p class="muted">
        Kept in this tab only (sessionStorage), sent as an Authorization header; never a cookie.
      </p>
    </form>
  );
}
