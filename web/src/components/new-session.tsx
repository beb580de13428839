import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../api/client.js';
import type { Role, Session } from '../api/types.js';
import { href } from '../router.js';

const permissionModes = ['default', 'acceptEdits', 'plan', 'dontAsk', 'auto'] as const;

/**
 * Starts a session (POST /v1/sessions). The launch id is fixed for the form, so a second click or a
 * retried request gives the same session rather than a second one.
 */
export function NewSession() {
  const [roles, setRoles] = useState<Role[]>([]);
  const [defaultRole, setDefaultRole] = useState<string>('');
  const [form, setForm] = useState({
    prompt: '',
    role: '',
    model: '',
    cwd: '',
    permissionMode: '',
    title: '',
  });
  const [launchId] = useState(() => `web-${crypto.randomUUID()}`);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    get<{ roles: Role[]; defaultRole: string }>('/v1/roles')
      .then((result) => {
        setRoles(result.roles);
        setDefaultRole(result.defaultRole);
      })
      .catch(() => setRoles([]));
  }, []);

  const field = (name: keyof typeof form) => ({
    value: form[name],
    onInput: (event: { currentTarget: { value: string } }) => {
      const value = event.currentTarget.value;
      setForm((current) => ({ ...current, [name]: value }));
    },
  });

  const submit = async () => {
    setBusy(true);
    setError(null);
    const body: Record<string, string> = { launchId };
    for (const [name, value] of Object.entries(form)) if (value.trim()) body[name] = value.trim();
    try {
      const created = await post<{ session: Session }>('/v1/sessions', body);
      location.hash = href.session(created.session.id);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      class="new-session"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <h1>New session</h1>
      <label>
        Prompt
        <textarea rows={4} required {...field('prompt')} />
      </label>
      <label>
        Role
        <select {...field('role')} onChange={field('role').onInput}>
          <option value="">{defaultRole ? `default (${defaultRole})` : 'default'}</option>
          {roles.map((role) => (
            <option key={role.name} value={role.name}>
              {role.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Model <span class="muted">(empty: the role's)</span>
        <input type="text" {...field('model')} />
      </label>
      <label>
        Working directory <span class="muted">(on the server; empty: the server's)</span>
        <input type="text" {...field('cwd')} />
      </label>
      <label>
        Permission mode
        <select {...field('permissionMode')} onChange={field('permissionMode').onInput}>
          <option value="">the role's</option>
          {permissionModes.map((mode) => (
            <option key={mode} value={mode}>
              {mode}
            </option>
          ))}
        </select>
      </label>
      <p class="muted">
        Allowed tools come from the role (see Roles): a session runs with its role's tool allowlist.
      </p>
      <label>
        Title <span class="muted">(empty: the prompt)</span>
        <input type="text" {...field('title')} />
      </label>
      {error && (
        <p class="error-note" role="alert">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy || !form.prompt.trim()}>
        Start
      </button>
    </form>
  );
}
