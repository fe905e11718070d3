import { RE2JS } from 're2js';

/**
 * Custom field patterns are written by shop owners and run on buyers' answers, so they run on
 * RE2 (re2js, pure JavaScript), whose matching time is linear in the answer, never on the
 * JavaScript engine: its backtracking lets one pattern such as `^(a+)+$` hold the event loop,
 * and so every shop's requests, for seconds per answer, doubling with each character. RE2 has no
 * lookarounds or backreferences: a pattern using them is refused when it is saved. What a match
 * can cost is bounded by the pattern's compiled size (checked at save, MAX_PATTERN_PROGRAM) times
 * the answer's length (MAX_ANSWER_LENGTH, checked by the checkout schema), and what one checkout
 * may spend on all its answers together by MAX_MATCH_WORK.
 */

/** Characters of a pattern (the product schemas refuse longer ones). */
export const MAX_PATTERN_LENGTH = 500;
/**
 * RE2 program instructions of a pattern: a counted repetition is unrolled (`\pL{1000}` is about
 * 1,000), and matching a 2,000-character answer against 1,000 instructions stays in the tens of
 * milliseconds; the patterns owners write (`^[A-Z0-9]{8}$`, an e-mail shape) are far below it.
 */
export const MAX_PATTERN_PROGRAM = 1000;
/** Characters of one custom field answer. */
export const MAX_ANSWER_LENGTH = 2000;
/**
 * Instructions × characters one checkout may match in all, over every patterned answer of its
 * parts. RE2 matches in time linear in both, but the constant varies by pattern: measured on
 * re2js here, from 0.1 to about 75 ns per unit (`\pL{990}` against 2,000 letters: 150 ms). Per
 * field the caps above allow 2,000,000 units, and an order may carry 25 parts of 25 fields:
 * without a budget for the whole order one checkout could hold the event loop for a minute.
 * 500,000 units is at most a few tens of milliseconds; a real form (a 40-instruction pattern,
 * answers of 50 characters) spends 2,000 a field.
 */
export const MAX_MATCH_WORK = 500_000;

/**
 * Compiled patterns (or why one cannot be used), so a pattern is compiled once rather than on
 * every checkout. Bounded: past CACHE_SIZE distinct patterns the least recently used goes.
 */
const CACHE_SIZE = 1000;
const compiled = new Map<string, RE2JS | string>();

function compile(pattern: string): RE2JS | string {
  const cached = compiled.get(pattern);
  if (cached !== undefined) {
    compiled.delete(pattern);
    compiled.set(pattern, cached);
    return cached;
  }
  let result: RE2JS | string;
  try {
    const re = RE2JS.compile(pattern);
    result =
      re.programSize() > MAX_PATTERN_PROGRAM
        ? `is too complex for RE2 (${re.programSize()} instructions, at most ${MAX_PATTERN_PROGRAM}): use smaller repetition counts`
        : re;
  } catch (err) {
    const detail = err instanceof Error ? err.message.replace(/^error parsing regexp: /, '') : String(err);
    result = `is not an RE2 regular expression (${detail}); lookarounds and backreferences are not supported`;
  }
  if (compiled.size >= CACHE_SIZE) compiled.delete(compiled.keys().next().value!);
  compiled.set(pattern, result);
  return result;
}

/** Why the pattern cannot be used (a sentence for `<field>: ...`), or undefined when it can. */
export function fieldPatternProblem(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH) return `must be at most ${MAX_PATTERN_LENGTH} characters`;
  const result = compile(pattern);
  return typeof result === 'string' ? result : undefined;
}

/** What matching `answer` against the pattern may cost at most, in MAX_MATCH_WORK's units. Only for patterns `fieldPatternProblem` accepts. */
export function matchWork(pattern: string, answer: string): number {
  const result = compile(pattern);
  return typeof result === 'string' ? 0 : result.programSize() * answer.length;
}

/**
 * Whether the answer contains a match (unanchored, like `RegExp.prototype.test`; anchor with
 * `^…$`). Only for patterns `fieldPatternProblem` accepts.
 */
export function matchesFieldPattern(pattern: string, answer: string): boolean {
  const result = compile(pattern);
  if (typeof result === 'string') throw new Error(`custom field pattern cannot be used: ${result}`);
  return result.test(answer);
}
