import type { FastifyError, FastifyInstance } from 'fastify';
import { constraintViolation } from '../db/database.js';
import { causeText, retryAfterSeconds, storageFailureOf } from '../db/storage-health.js';
import {
  AppError,
  ConflictError,
  type ErrorCode,
  MethodNotAllowedError,
  NotFoundError,
  RateLimitedError,
  ServiceUnavailableError,
  ValidationError,
} from './errors.js';
import { formatValidationErrors } from './validation.js';

const codeByStatus: Record<number, ErrorCode> = {
  400: 'validation_error',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable',
  429: 'rate_limited',
};

const messageByFastifyCode: Record<string, string> = {
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The JSON body is empty.',
  FST_ERR_CTP_INVALID_JSON_BODY: 'The body is not valid JSON.',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The body is larger than the limit.',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'The body must be JSON (Content-Type: application/json).',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The Content-Length does not match the body.',
  // @fastify/csrf-protection refusing a web admin session's write (the accounts module's owner-auth.ts).
  FST_CSRF_MISSING_SECRET: 'Missing or invalid CSRF token.',
  FST_CSRF_INVALID_TOKEN: 'Missing or invalid CSRF token.',
};

/** Maps anything thrown in a request to the contract's status, code and envelope. */
export function toAppError(err: FastifyError | Error): AppError {
  if (err instanceof AppError) return err;
  const fastifyErr = err as FastifyError;
  if (fastifyErr.validation) {
    return new ValidationError(formatValidationErrors(fastifyErr.validation as never, fastifyErr.validationContext));
  }
  const constraint = constraintViolation(err);
  if (constraint === 'unique') return new ConflictError('This conflicts with an existing record.');
  if (constraint === 'foreign_key')
    return new ConflictError('This refers to a record that does not exist or is still in use.');
  if (constraint) return new ValidationError(['body: violates a data constraint']);
  // The storage under the database failed (a full disk, a read-only file system, another process
  // keeping SQLite's file locked past its bound, a PostgreSQL server gone): nothing of the request
  // is kept, and it may be tried again once that is over.
  const storage = storageFailureOf(err);
  if (storage) {
    const cause = causeText[storage.cause];
    return new ServiceUnavailableError(
      `Temporarily unavailable: ${cause}. Nothing was changed; try again shortly.`,
      retryAfterSeconds[storage.cause],
      [`database: ${cause}`],
    );
  }
  if (
    fastifyErr.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    (err instanceof SyntaxError && fastifyErr.statusCode === 400)
  ) {
    return new ValidationError(['body: is not valid JSON'], 'The body is not valid JSON.');
  }
  const status = fastifyErr.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    const code = codeByStatus[status] ?? 'validation_error';
    const message = messageByFastifyCode[fastifyErr.code] ?? err.message;
    return new AppError(codeByStatus[status] ? status : 400, code, message);
  }
  return new AppError(500, 'internal_error', 'Internal server error.');
}

/**
 * Must run before any route is added: it learns from the routes which methods exist, so that a
 * request the router does not match is told apart as an unknown path (404) or a known path
 * asked with a method it does not answer (405 with `Allow`).
 */
export function registerErrorHandling(app: FastifyInstance): void {
  const methods = new Set<string>();
  app.addHook('onRoute', (route) => {
    // The CORS preflight catch-all (`OPTIONS /v2/public/*`, http/cors.ts) answers every path: it makes no path known.
    if (route.url.endsWith('*') && [route.method].flat().every((m) => m === 'OPTIONS')) return;
    for (const method of [route.method].flat()) methods.add(method);
  });
  /** The methods the router answers on this URL's path (HEAD comes with every GET). */
  const allowedOn = (url: string): string[] =>
    [...methods].filter((method) => app.findRoute({ method: method as 'GET', url }) !== null).sort();

  app.setErrorHandler((err, request, reply) => {
    const appError = toAppError(err as Error);
    // A storage failure is logged once, when it starts (storage-health.ts), not with a stack per request.
    if (request.server.db.health.report(err)) request.log.debug({ err: appError.message }, 'request refused');
    else if (appError.statusCode >= 500) request.log.error({ err }, 'request failed');
    else request.log.debug({ err: appError.message }, 'request refused');
    if (appError instanceof ServiceUnavailableError || appError instanceof RateLimitedError)
      void reply.header('retry-after', String(appError.retryAfterSeconds));
    if (appError instanceof MethodNotAllowedError) void reply.header('allow', appError.allowed.join(', '));
    void reply.status(appError.statusCode).send({
      data: null,
      message: appError.message,
      errors: appError.errors,
      code: appError.code,
    });
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = allowedOn(path);
    if (allowed.length > 0) throw new MethodNotAllowedError(request.method, allowed);
    const err = new NotFoundError('Route');
    void reply
      .status(404)
      .send({ data: null, message: `No route ${request.method} ${path}.`, errors: err.errors, code: err.code });
  });
}
