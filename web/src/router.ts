import { useEffect, useState } from 'preact/hooks';

/** The views are `#/…` routes: one page, served as is, that works with any server path. */
export type Route =
  | { view: 'inbox' }
  | { view: 'session'; id: string }
  | { view: 'new' }
  | { view: 'catalog'; kind: 'roles' | 'providers' | 'skills'; name: string | null }
  | { view: 'seeds' }
  | { view: 'missing'; path: string };

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '') || '/';
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const [first, second] = parts;
  if (first === undefined) return { view: 'inbox' };
  if (first === 'sessions' && second) return { view: 'session', id: second };
  if (first === 'new') return { view: 'new' };
  if (first === 'seeds') return { view: 'seeds' };
  if (first === 'roles' || first === 'providers' || first === 'skills')
    return { view: 'catalog', kind: first, name: second ?? null };
  return { view: 'missing', path };
}

export const href = {
  inbox: () => '#/',
  session: (id: string) => `#/sessions/${encodeURIComponent(id)}`,
  new: () => '#/new',
  catalog: (kind: string, name?: string) => (name ? `#/${kind}/${encodeURIComponent(name)}` : `#/${kind}`),
};

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', update);
    // A hash changed between the first render and this effect fired no event this listener saw.
    update();
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
