/**
 * The agent's automatic answer (`NodeOptions.answer`), called under a deadline: an answer that
 * throws, does not come in time or is no valid message never fails the delivery (a 500 over A2A,
 * an unaudited round). The caller then lets a human answer, as it does when no answer is
 * configured; what went wrong goes to `onAnswerError`, never to the peer (an exception's text may
 * hold data).
 */
import type { IncomingQuery, NodeOptions } from './context';
import { parseMessage } from './fast-parse';
import type { ExchangeMessage } from './message';

/** How long `answer` may take by default (the A2A client gives up on a round trip after 10 s). */
export const DEFAULT_ANSWER_TIMEOUT_MS = 5_000;

/** Why an automatic answer failed: `error` (it threw), `timeout`, `invalid` (no valid message). */
export type AnswerFailure = 'error' | 'timeout' | 'invalid';

/** What `onAnswerError` is told. */
export interface AnswerError {
  failure: AnswerFailure;
  /** What `answer` threw, or the validation issues of what it returned (absent on a timeout). */
  cause?: unknown;
  exchangeId: string;
  round: number;
}

const REASONS: Record<AnswerFailure, string> = {
  error: 'the automatic answer failed',
  timeout: 'the automatic answer did not come in time',
  invalid: 'the automatic answer is not a valid message',
};

/** The answer, or why there is none (a reason fit for the peer and the audit log). */
export async function automaticAnswer(
  options: Pick<NodeOptions, 'answerTimeoutMs' | 'onAnswerError'>,
  answer: NonNullable<NodeOptions['answer']>,
  query: IncomingQuery,
): Promise<{ answer: ExchangeMessage } | { failed: string }> {
  const fail = (failure: AnswerFailure, cause?: unknown) => {
    try {
      options.onAnswerError?.({
        failure,
        ...(cause !== undefined ? { cause } : {}),
        exchangeId: query.exchangeId,
        round: query.round,
      });
    } catch {
      // A failing observer changes nothing: the round still goes to a human.
    }
    return { failed: REASONS[failure] };
  };
  const ms = options.answerTimeoutMs ?? DEFAULT_ANSWER_TIMEOUT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let raw: unknown;
  try {
    raw = await Promise.race([
      answer(query),
      new Promise<typeof TIMED_OUT>((resolve) => {
        timer = setTimeout(resolve, ms, TIMED_OUT);
      }),
    ]);
  } catch (error) {
    return fail('error', error);
  } finally {
    clearTimeout(timer);
  }
  if (raw === TIMED_OUT) return fail('timeout');
  const parsed = parseMessage(raw);
  return parsed.success ? { answer: parsed.data } : fail('invalid', parsed.error.issues);
}

const TIMED_OUT = Symbol('timed out');
