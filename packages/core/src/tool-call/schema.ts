/**
 * Tool calls waiting for a human (`@agentgov/mcp`): a pending approval of one call — this tenant,
 * user, tool and arguments digest, with the arguments themselves for the human to read — and the
 * notices of `notify` tools.
 */
import { z } from 'zod';

export const TOOL_APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'consumed', 'expired'] as const;
export type ToolApprovalStatus = (typeof TOOL_APPROVAL_STATUSES)[number];
export const ToolApprovalStatusSchema = z.enum(TOOL_APPROVAL_STATUSES);

export const ToolApprovalSchema = z.object({
  id: z.string().min(1),
  tenantId: z.string().min(1),
  /** The user whose assistant asked (the call is theirs). */
  userId: z.string().min(1),
  /** The exposed tool name, and the name the policy was asked about. */
  tool: z.string().min(1),
  policyTool: z.string().min(1),
  upstream: z.string(),
  /** `sha256:<hex>` of the canonical arguments: the approval is for these arguments only. */
  argumentsDigest: z.string().min(1),
  /**
   * The canonical JSON of the call's arguments: exactly the text whose SHA-256 is
   * `argumentsDigest`. The human deciding must see what they approve (not what the assistant says
   * the call does), so the arguments are kept with the approval and shown wherever it is decided.
   * Absent on an approval recorded before they were kept, or requested without them.
   */
  arguments: z.string().optional(),
  /** Why approval is needed (the decision's reason). */
  reason: z.string(),
  status: ToolApprovalStatusSchema,
  createdAt: z.string(),
  expiresAt: z.string(),
  decidedAt: z.string().optional(),
  decidedBy: z.string().optional(),
  note: z.string().optional(),
  /** When the approved call used it (status `consumed`). */
  consumedAt: z.string().optional(),
});
export type ToolApproval = z.infer<typeof ToolApprovalSchema>;

/** That a `notify` tool was called: who called which tool, with which arguments, and how it went. */
export const ToolNoticeSchema = ToolApprovalSchema.pick({
  id: true,
  tenantId: true,
  userId: true,
  tool: true,
  upstream: true,
  argumentsDigest: true,
}).extend({
  outcome: z.enum(['success', 'error']),
  at: z.string(),
});
export type ToolNotice = z.infer<typeof ToolNoticeSchema>;

/** What an approval is bound to: one call of one tool, with these arguments, by this user. */
export interface ToolApprovalKey {
  tenantId: string;
  userId: string;
  policyTool: string;
  argumentsDigest: string;
}

/** What `request` records. */
export interface ToolApprovalRequest extends ToolApprovalKey {
  tool: string;
  upstream: string;
  reason: string;
  /**
   * The canonical JSON of the arguments (the text `argumentsDigest` is the SHA-256 of), kept with
   * the approval so that the human deciding it sees what they approve.
   */
  arguments?: string;
  /** The approval expires this long after `now` (pending or approved and unused). */
  ttlMs: number;
}

export interface ToolApprovalDecision {
  approved: boolean;
  by: string;
  note?: string;
}
