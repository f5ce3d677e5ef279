import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';

/**
 * `0011_tool_approval_arguments`: `tool_approvals.arguments`, the canonical JSON of the call's
 * arguments — the text whose SHA-256 is `arguments_digest` (`KyselyToolCallInbox`). A human
 * deciding a pending tool call must see what they approve, not only a digest (an assistant could
 * describe the call as something it is not), so the arguments are kept with the approval and
 * returned wherever it is read. Nullable: a row made before this migration has none (the console
 * says so), and so has an approval requested without them.
 */
export const toolApprovalArguments: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE tool_approvals ADD COLUMN arguments text`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE tool_approvals DROP COLUMN IF EXISTS arguments`.execute(db);
  },
};
