import createClient, { type Middleware } from 'openapi-fetch';
import { strings } from '../strings';
import type { paths } from './schema';

/**
 * The owner API, typed from the server's OpenAPI document (`schema.d.ts`, generated at build
 * time). The admin is signed in with the `shopd_session` cookie; every call that changes
 * something carries the session's CSRF token in `x-csrf-token`.
 */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });

let csrfToken: string | null = null;
let onSignedOut: (() => void) | null = null;
let onCsrfRefused: (() => void) | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when a call answers 401: the session expired or was ended elsewhere. */
export function whenSignedOut(callback: () => void): void {
  onSignedOut = callback;
}

/**
 * Called when a write is refused for its CSRF token: the browser's session changed under this tab
 * (a sign-in in another tab). The session is asked for again, which brings the current token.
 */
export function whenCsrfRefused(callback: () => void): void {
  onCsrfRefused = callback;
}

/**
 * What a write sent outside openapi-fetch carries (a file sent with XMLHttpRequest, whose upload
 * progress fetch cannot report): the session's CSRF token.
 */
export function writeHeaders(): Record<string, string> {
  return csrfToken ? { 'x-csrf-token': csrfToken } : {};
}

/** A call sent outside openapi-fetch answered 401: the same as one inside it. */
export function answeredUnauthorized(): void {
  onSignedOut?.();
}

const session: Middleware = {
  onRequest({ request }) {
    if (csrfToken && !['GET', 'HEAD', 'OPTIONS'].includes(request.method))
      request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
  async onResponse({ response, request }) {
    if (response.status === 401 && !new URL(request.url).pathname.startsWith('/self/session')) onSignedOut?.();
    if (response.status === 403 && csrfToken && !['GET', 'HEAD', 'OPTIONS'].includes(request.method)) {
      const body = (await response
        .clone()
        .json()
        .catch(() => null)) as { message?: string } | null;
      if (body?.message === 'Missing or invalid CSRF token.') onCsrfRefused?.();
    }
    return response;
  },
};
api.use(session);

/** The contract's error envelope, with `errors` split into the fields they name. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly errors: string[];
  /** `"title: is required"` becomes `{ title: 'is required' }`; `variants[0].price` keeps its path. */
  readonly fields: Record<string, string>;

  constructor(status: number, body: { message?: string; errors?: string[]; code?: string } | undefined) {
    super(body?.message ?? strings.common.theServerAnswered(status));
    this.status = status;
    this.code = body?.code ?? 'internal_error';
    this.errors = body?.errors ?? [];
    this.fields = {};
    for (const problem of this.errors) {
      const at = problem.indexOf(': ');
      if (at > 0) this.fields[problem.slice(0, at)] ??= problem.slice(at + 2);
    }
  }

  /**
   * The problems that no field on the form shows, for a summary above it: `shown` names the
   * fields (a problem of `title` or `title.x` is theirs), or tells whether a path is shown.
   */
  unshown(shown: readonly string[] | ((path: string) => boolean)): string[] {
    const isShown =
      typeof shown === 'function'
        ? shown
        : (path: string) => shown.some((name) => path === name || path.startsWith(`${name}.`));
    return this.errors.filter((problem) => {
      const at = problem.indexOf(': ');
      return at <= 0 || !isShown(problem.slice(0, at));
    });
  }
}

// `data` is optional: openapi-fetch leaves out a property typed `null` (a sign-out answers `data: null`).
type Result<T> = { data?: { data?: T; message?: string } | undefined; error?: unknown; response: Response };

/** The `data` of an answer, or an ApiError for an error envelope. */
export async function unwrap<T>(call: Promise<Result<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || !data) throw new ApiError(response.status, error as never);
  return data.data as T;
}
