/**
 * The dashboard's only way to the server: the same HTTP API every client uses. The bearer token,
 * when the server wants one, lives in this tab's sessionStorage: no cookie, so no request carries
 * it unless this code adds it (nothing for a CSRF to ride on).
 */

const tokenKey = 'agentd.token';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();

export function getToken(): string | null {
  return sessionStorage.getItem(tokenKey);
}

export function setToken(token: string | null): void {
  if (token === null || token === '') sessionStorage.removeItem(tokenKey);
  else sessionStorage.setItem(tokenKey, token);
}

/** Called whenever the server answers 401: the page asks for a token. */
export function onUnauthorized(listener: Listener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

export function authHeaders(): Record<string, string> {
  const token = getToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

async function errorOf(response: Response): Promise<ApiError> {
  let code = 'http_error';
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = (await response.json()) as { error?: { code?: string; message?: string } };
    code = body.error?.code ?? code;
    message = body.error?.message ?? message;
  } catch {
    // Not JSON: keep the status line.
  }
  if (response.status === 401) for (const listener of unauthorizedListeners) listener();
  return new ApiError(response.status, code, message);
}

export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', ...authHeaders() };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) throw await errorOf(response);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export const get = <T>(path: string) => request<T>('GET', path);
export const post = <T>(path: string, body?: unknown) => request<T>('POST', path, body);

export { errorOf };
