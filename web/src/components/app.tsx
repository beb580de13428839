import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, getToken, onUnauthorized, setToken } from '../api/client.js';
import { href, useRoute } from '../router.js';
import { Catalog } from './catalog.js';
import { Inbox } from './inbox.js';
import { NewSession } from './new-session.js';
import { SessionPage } from './session-page.js';
import { TokenForm } from './token-form.js';

type Auth = 'checking' | 'ok' | 'needed' | 'refused';

/** The shell: asks for a token when the server wants one, then the view the hash names. */
export function App() {
  const route = useRoute();
  const [auth, setAuth] = useState<Auth>('checking');
  const [attempt, setAttempt] = useState(0);

  useEffect(() => onUnauthorized(() => setAuth(getToken() ? 'refused' : 'needed')), []);
  useEffect(() => {
    get('/health')
      .then(() => setAuth('ok'))
      .catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 401) setAuth(getToken() ? 'refused' : 'needed');
        else setAuth('ok');
      });
  }, [attempt]);

  if (auth === 'checking') return <p class="muted">Connecting…</p>;
  if (auth === 'needed' || auth === 'refused')
    return (
      <main class="main narrow">
        <TokenForm refused={auth === 'refused'} onSaved={() => setAttempt((count) => count + 1)} />
      </main>
    );
  const current = route.view === 'catalog' ? route.kind : route.view;
  const link = (target: string, label: string, name: string) => (
    <a href={target} aria-current={current === name ? 'page' : undefined}>
      {label}
    </a>
  );
  return (
    <>
      <header class="top">
        <a class="brand" href={href.inbox()}>
          agentd
        </a>
        <nav aria-label="Main">
          {link(href.inbox(), 'Inbox', 'inbox')}
          {link(href.new(), 'New session', 'new')}
          {link(href.catalog('roles'), 'Roles', 'roles')}
          {link(href.catalog('providers'), 'Providers', 'providers')}
          {link(href.catalog('skills'), 'Skills', 'skills')}
          {link('#/seeds', 'Seeds', 'seeds')}
        </nav>
        {getToken() && (
          <button
            type="button"
            class="link"
            onClick={() => {
              setToken(null);
              setAttempt((count) => count + 1);
            }}
          >
            Forget token
          </button>
        )}
      </header>
      <main class="main">
        {route.view === 'inbox' && <Inbox />}
        {route.view === 'session' && <SessionPage id={route.id} />}
        {route.view === 'new' && <NewSession />}
        {route.view === 'catalog' && <Catalog kind={route.kind} name={route.name} />}
        {route.view === 'seeds' && (
          <section>
            <h1>Seed runs</h1>
            <p class="muted">Seed runs (a goal with checked acceptance criteria) will be listed here.</p>
          </section>
        )}
        {route.view === 'missing' && <p>Nothing at {route.path}.</p>}
      </main>
    </>
  );
}
