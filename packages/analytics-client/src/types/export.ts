// The parsed JSON export (spec: `GET /api/export?format=json`).
import type { Extra } from './common';
import type { Message, ToolCall } from './records';
import type { Session } from './sessions';

export interface ExportedSession {
  session: Session;
  messages: Message[];
  toolCalls: ToolCall[];
  extra: Extra;
}
