// Wire mapping of the JSON export (`GET /api/export?format=json`): a bare array of sessions, each with
// its messages and tool calls.
import { z } from 'zod';
import type * as T from '../types';
import { arr, decoder, extraOf, list } from './primitives';
import { mapMessage, mapToolCall, wireMessage, wireToolCall } from './records';
import { mapSession, wireSession } from './sessions';

const wireExportedSession = z
  .object({ session: wireSession, messages: list(wireMessage), tool_calls: list(wireToolCall) })
  .loose();
export const exportedSessions = decoder(z.array(wireExportedSession), (w): T.ExportedSession[] =>
  w.map((e) => ({
    session: mapSession(e.session),
    messages: arr(e.messages, mapMessage),
    toolCalls: arr(e.tool_calls, mapToolCall),
    extra: extraOf(e, wireExportedSession),
  })),
);
