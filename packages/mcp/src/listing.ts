/**
 * `tools/list` for one session: every upstream's tools (paginated, at most `maxToolsPerUpstream`
 * each), namespaced; names that are not plain ASCII or that collide up to case withheld; each tool
 * decided for the session's user, blocked and denied ones absent, the autonomy shown in `_meta`
 * and the description.
 */
import type { ActionAutonomy, ClassificationLevel } from '@agentgov/core';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpLimits } from './config';
import { ToolCallRefused } from './errors';
import { badToolName, exposedName, policyName } from './names';
import {
  type GovernorWarning,
  META_AUTONOMY,
  META_CLASSIFICATION,
  META_UPSTREAM,
  type SessionIdentity,
  type ToolEntry,
  type ToolSession,
} from './session';
import type { Upstream } from './upstream';

const AUTONOMY_TEXT: Record<Exclude<ActionAutonomy, 'block'>, string> = {
  autonomous: 'runs without asking',
  notify: 'runs, and the user is told',
  approve: 'a human approves each call first',
};

export interface ListingDeps {
  upstreams: readonly Upstream[];
  limits: McpLimits;
  warn(warning: GovernorWarning): void;
  decide(
    identity: SessionIdentity,
    policyTool: string,
    classification: ClassificationLevel,
  ): Promise<{ autonomy: ActionAutonomy | 'deny'; blocked?: boolean; reason?: string }>;
}

interface Candidate {
  u: Upstream;
  tool: Tool;
  exposed: string;
  policyTool: string;
}

/** The tools the session's user may call; remembered as the session's last list. */
export async function listSessionTools(deps: ListingDeps, session: ToolSession): Promise<Tool[]> {
  const candidates = uniqueCandidates(deps, await upstreamLists(deps));
  const decided = await Promise.all(
    candidates.map(async (c) => {
      const classification = c.u.classificationOf(c.tool.name);
      const d = await deps.decide(session.identity, c.policyTool, classification);
      return { ...c, classification, autonomy: d.autonomy, blocked: d.blocked === true, reason: d.reason };
    }),
  );
  const listed = new Map<string, ToolEntry>();
  const withheld = new Map<string, { entry: ToolEntry; reason: string }>();
  const out: Tool[] = [];
  for (const c of decided) {
    const entry: ToolEntry = {
      exposed: c.exposed,
      policyTool: c.policyTool,
      upstream: c.u,
      upstreamTool: c.tool.name,
      classification: c.classification,
      autonomy: c.autonomy === 'deny' ? 'block' : c.autonomy,
    };
    if (c.autonomy === 'deny' || c.autonomy === 'block') {
      // Told as blocked only when the actions policy blocks it: a user the policy does not know
      // (nothing allows them anything) learns nothing of which tools exist.
      if (c.blocked)
        withheld.set(c.exposed, { entry, reason: c.reason || `tool ${c.exposed} is blocked by policy` });
      continue;
    }
    listed.set(c.exposed, entry);
    const description = `[agentgov: ${c.autonomy} — ${AUTONOMY_TEXT[c.autonomy]}]${c.tool.description ? ` ${c.tool.description}` : ''}`;
    out.push({
      ...c.tool,
      name: c.exposed,
      description,
      _meta: {
        ...(c.tool._meta ?? {}),
        [META_AUTONOMY]: c.autonomy,
        [META_UPSTREAM]: c.u.namespace,
        [META_CLASSIFICATION]: c.classification,
      },
    });
  }
  session.listed = listed;
  session.withheld = withheld;
  return out;
}

/**
 * The refusal of a call naming no tool of the session's last list: one the actions policy blocks
 * for the user (`policy_denied`, with the policy's reason: the user may know their own policy), else an
 * unknown name or a tool added upstream since (`unknown_tool`: list the tools again). A name that
 * is only like a blocked one (case, look-alike letters) is unknown.
 */
export function notListed(
  session: ToolSession,
  name: string,
): { refusal: ToolCallRefused; entry?: ToolEntry } {
  const blocked = session.withheld?.get(name);
  if (blocked)
    return {
      entry: blocked.entry,
      refusal: new ToolCallRefused(
        'policy_denied',
        `${blocked.reason} (for you, as of this session's last tools/list: list the tools again if that changed)`,
        { tool: name },
      ),
    };
  return {
    refusal: new ToolCallRefused(
      'unknown_tool',
      `${name} is not a tool of this session's last tools/list (unknown, or added since: list the tools again)`,
      { tool: name },
    ),
  };
}

/** Each upstream's tools; an upstream that cannot be listed contributes nothing (and is reported). */
async function upstreamLists(deps: ListingDeps): Promise<{ u: Upstream; tools: Tool[] }[]> {
  const { limits } = deps;
  return Promise.all(
    deps.upstreams.map(async (u) => {
      try {
        const { tools, truncated, malformed } = await u.listTools(
          limits.maxToolsPerUpstream,
          limits.callTimeoutMs,
        );
        for (const m of malformed)
          deps.warn({ upstream: u.namespace, ...m, problem: `withheld: ${m.problem}` });
        if (truncated)
          deps.warn({
            upstream: u.namespace,
            problem: `listed more than ${limits.maxToolsPerUpstream} tools; the rest are dropped`,
          });
        return { u, tools };
      } catch (error) {
        deps.warn({ upstream: u.namespace, problem: `cannot be listed: ${(error as Error).message}` });
        return { u, tools: [] as Tool[] };
      }
    }),
  );
}

/** The tools with exposable names whose policy names are unique; the others withheld (reported). */
function uniqueCandidates(deps: ListingDeps, lists: { u: Upstream; tools: Tool[] }[]): Candidate[] {
  const candidates: Candidate[] = [];
  const byPolicyName = new Map<string, number>();
  for (const { u, tools } of lists) {
    for (const tool of tools) {
      const bad = badToolName(tool.name);
      if (bad) {
        deps.warn({
          upstream: u.namespace,
          tool: String(tool.name).slice(0, 200),
          problem: `withheld: ${bad}`,
        });
        continue;
      }
      const exposed = exposedName(u.namespace, tool.name);
      const p = policyName(exposed);
      byPolicyName.set(p, (byPolicyName.get(p) ?? 0) + 1);
      candidates.push({ u, tool, exposed, policyTool: p });
    }
  }
  return candidates.filter((c) => {
    if ((byPolicyName.get(c.policyTool) ?? 0) === 1) return true;
    deps.warn({
      upstream: c.u.namespace,
      tool: c.tool.name,
      problem: 'withheld: another tool of the upstream has the same name up to case',
    });
    return false;
  });
}
