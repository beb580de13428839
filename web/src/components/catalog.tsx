import { get } from '../api/client.js';
import type { NamedRecord } from '../api/types.js';
import { href } from '../router.js';
import { usePoll } from '../use-poll.js';
import { ErrorNote } from './error-note.js';

type Kind = 'roles' | 'providers' | 'skills';

const single: Record<Kind, string> = { roles: 'role', providers: 'provider', skills: 'skill' };
/** Skills are named by their digest in the API; roles and providers by name. */
const idOf = (kind: Kind, entry: NamedRecord) => String(kind === 'skills' ? entry.digest : entry.name);

const summaryOf: Record<Kind, (entry: NamedRecord) => string> = {
  roles: (entry) => [`v${entry.version}`, entry.model, entry.provider].filter(Boolean).join(' · '),
  providers: (entry) => String(entry.kind ?? ''),
  skills: (entry) => [String(entry.digest ?? '').slice(0, 19), entry.state].filter(Boolean).join(' · '),
};

/** List and detail pages for roles, providers and skills, read from /v1/{kind}. */
export function Catalog({ kind, name }: { kind: Kind; name: string | null }) {
  return name === null ? <CatalogList kind={kind} /> : <CatalogDetail kind={kind} name={name} />;
}

function CatalogList({ kind }: { kind: Kind }) {
  const { data, error } = usePoll(
    async () => (await get<Record<string, NamedRecord[]>>(`/v1/${kind}`))[kind] ?? [],
    10_000,
    [kind],
  );
  return (
    <section>
      <h1 class="capitalize">{kind}</h1>
      {error && <ErrorNote error={error} />}
      {data?.length === 0 && <p class="muted">None yet.</p>}
      <ul class="rows">
        {data?.map((entry) => (
          <li key={idOf(kind, entry)} class="catalog-row">
            <a class="catalog-link" href={href.catalog(kind, idOf(kind, entry))}>
              <span class="title">{entry.name}</span> <span class="muted">{summaryOf[kind](entry)}</span>
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}

function CatalogDetail({ kind, name }: { kind: Kind; name: string }) {
  const { data, error } = usePoll(
    async () =>
      (await get<Record<string, NamedRecord>>(`/v1/${kind}/${encodeURIComponent(name)}`))[single[kind]],
    10_000,
    [kind, name],
  );
  return (
    <section>
      <p>
        <a href={href.catalog(kind)}>← {kind}</a>
      </p>
      <h1>{data?.name ?? name}</h1>
      {error && <ErrorNote error={error} />}
      {data && <pre class="json">{JSON.stringify(data, null, 2)}</pre>}
    </section>
  );
}
