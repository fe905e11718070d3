import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { NotFoundError } from './errors.js';

/** Names that only ever reach the machine they are typed on: nobody can lure an owner there. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * The host of a `Host` header, lower case, without port or trailing dot (`[::1]:3000` → `[::1]`).
 * Empty when there is none.
 */
function hostOf(header: string | undefined): string {
  const value = (header ?? '').trim().toLowerCase();
  const host = value.startsWith('[') ? value.slice(0, value.indexOf(']') + 1) : value.replace(/:\d*$/, '');
  return host.replace(/\.$/, '');
}

/**
 * Whether a request's host is one of the operator's: PUBLIC_URL's host, one of `ADMIN_HOSTS`, or
 * a loopback name. Every other host (a shop's subdomain, a custom domain an owner points here, an
 * unknown name) gets no web admin and no owner session: a custom domain's owner controls its DNS
 * and could otherwise collect another owner's session cookie or password there (issue 36, M3).
 */
export function isAdminHost(config: Pick<Config, 'publicUrl' | 'adminHosts'>, hostHeader: string | undefined): boolean {
  const host = hostOf(hostHeader);
  if (host === '') return false;
  if (LOOPBACK.has(host)) return true;
  if (host === new URL(config.publicUrl).hostname.toLowerCase()) return true;
  return config.adminHosts.includes(host);
}

/** onRequest hook of the web admin's pages: 404 on a host that is not the operator's. */
export async function adminPagesOnOperatorHosts(request: FastifyRequest): Promise<void> {
  if (!isAdminHost(request.server.config, request.headers.host)) throw new NotFoundError('Page');
}

/**
 * onRequest hook of the `/self` scope. On a host that is not the operator's, only calls with an
 * `Authorization` header (an API key) are served: sign-in, sign-out, the password link and every
 * call authenticated by the `shopd_session` cookie answer 404, so no session is created there and
 * a session cookie a browser holds is never accepted there. API keys are not tied to a browser or
 * an origin, so an integration may keep calling through any host that reaches this server.
 */
export async function ownerSessionsOnOperatorHosts(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  if (request.headers.authorization !== undefined) return;
  if (!isAdminHost(request.server.config, request.headers.host)) throw new NotFoundError('Route');
}
