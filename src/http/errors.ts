/**
 * The one error family of the service. Services throw these; the error handler turns them
 * (and schema failures and database constraint violations) into the contract's envelope.
 */
export type ErrorCode =
  | 'validation_error'
  | 'unauthorized'
  | 'forbidden'
  | 'shop_locked'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unprocessable'
  | 'rate_limited'
  | 'challenge_required'
  | 'service_unavailable'
  | 'payment_provider_error'
  | 'internal_error';

export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    readonly errors: string[] = [message],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 400: one string per problem, each `"<field path>: <what is wrong>"`. */
export class ValidationError extends AppError {
  constructor(errors: string[], message = 'The request is not valid.') {
    super(400, 'validation_error', message, errors);
  }
  static field(field: string, problem: string): ValidationError {
    return new ValidationError([`${field}: ${problem}`]);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'A valid API key is required.') {
    super(401, 'unauthorized', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'This API key may not perform this action.', code: 'forbidden' | 'shop_locked' = 'forbidden') {
    super(403, code, message);
  }
}

export class NotFoundError extends AppError {
  constructor(what = 'Resource', errors?: string[]) {
    super(404, 'not_found', `${what} not found.`, errors);
  }
}

/** 405: the path exists, but not with this method; `allowed` goes into the `Allow` header. */
export class MethodNotAllowedError extends AppError {
  constructor(
    method: string,
    readonly allowed: string[],
  ) {
    super(405, 'method_not_allowed', `${method} is not allowed on this path; it answers ${allowed.join(', ')}.`);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, errors?: string[]) {
    super(409, 'conflict', message, errors);
  }
}

/** 422: a business rule refuses an otherwise well-formed request. */
export class UnprocessableError extends AppError {
  constructor(message: string, errors?: string[]) {
    super(422, 'unprocessable', message, errors);
  }
}

/**
 * 428: the shop asks this client for a solved proof-of-work challenge (src/modules/challenge)
 * and the request carried none, or one that is not valid, expired, of another shop or spent.
 */
export class ChallengeRequiredError extends AppError {
  constructor(message: string, errors?: string[]) {
    super(428, 'challenge_required', message, errors);
  }
}

/** 429 from a limit of the service's own (sign-in codes per e-mail and per IP); `Retry-After` says when to try again. */
export class RateLimitedError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, 'rate_limited', message);
  }
}

/** 503: the service cannot answer now (the database stayed locked); `Retry-After` says when to try again. */
export class ServiceUnavailableError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds = 1,
    errors?: string[],
  ) {
    super(503, 'service_unavailable', message, errors);
  }
}

/** 502: a payment provider refused or did not answer a call shopd made to it; nothing was changed here. */
export class PaymentProviderError extends AppError {
  constructor(message: string, errors?: string[]) {
    super(502, 'payment_provider_error', message, errors);
  }
}
