import { type BodyOperation, type BodyValidator, bodyValidators } from './generated/body-validators';
import type { paths } from './schema';

export type { BodyOperation, BodyValidator };

/** The JSON body of an operation named `"<METHOD> <path>"`, as the generated types have it. */
export type BodyOf<Op extends BodyOperation> = Op extends `${infer M} ${infer P}`
  ? P extends keyof paths
    ? Lowercase<M> extends keyof paths[P]
      ? paths[P][Lowercase<M>] extends { requestBody?: { content: { 'application/json': infer B } } }
        ? B
        : never
      : never
    : never
  : never;

/** The validator of an operation's body (its module is fetched on the first call, then kept). */
export function loadBodyValidator(operation: BodyOperation): Promise<BodyValidator> {
  return bodyValidators[operation]().then((module) => module.validate);
}

/**
 * One problem of a body and the problems of a validation, worded as the server words them
 * (src/shared/validation-words.ts): `path` is the contract's (`variants[0].title`).
 */
export type { ValidationProblem as BodyProblem } from '../../../../src/shared/validation-words';
export { validationProblems as bodyProblems } from '../../../../src/shared/validation-words';
