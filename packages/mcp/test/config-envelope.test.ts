import { describe, expect, it } from 'vitest';
import { MCP_PROXY_KIND, McpConfigError, parseMcpConfigYaml } from '../src/index';

const BODY = `
  identity: {tenantId: acme, userId: alice}
  upstreams:
  - namespace: notes
    transport: stdio
    command: node
  limits: {callTimeoutMs: 5000}
`;
const envelope = (body: string, head = `apiVersion: agentgov.dev/v1\nkind: ${MCP_PROXY_KIND}\n`) =>
  `${head}metadata: {name: desk}\nspec:${body}`;
const issues = (text: string) => {
  try {
    parseMcpConfigYaml(text, 'mcp.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigError);
    return (error as McpConfigError).issues;
  }
  throw new Error('expected an McpConfigError');
};

describe('configuration in the agentgov.dev/v1 envelope (kind McpProxy)', () => {
  it('reads the spec as the legacy bare form reads the top level', () => {
    const bare = parseMcpConfigYaml(BODY.replace(/^ {2}/gm, ''));
    const wrapped = parseMcpConfigYaml(envelope(BODY));
    expect(wrapped).toEqual(bare);
    expect(wrapped.limits.callTimeoutMs).toBe(5000);
    expect(wrapped.upstreams[0]).toMatchObject({ namespace: 'notes', maxRestarts: 3 });
  });

  it('names an unknown key by its path, with the nearest known key', () => {
    expect(issues(envelope(`${BODY}  limts: {}\n`))).toEqual([
      { path: 'spec.limts', message: 'unknown key; did you mean spec.limits?' },
    ]);
    expect(issues(envelope(BODY.replace('command: node', 'command: node\n    comand: x')))).toEqual([
      { path: 'spec.upstreams.0.comand', message: 'unknown key; did you mean spec.upstreams.0.command?' },
    ]);
  });

  it('refuses another apiVersion or kind', () => {
    expect(issues(envelope(BODY, 'apiVersion: agentgov.dev/v2\nkind: McpProxy\n'))).toEqual([
      { path: 'apiVersion', message: 'expected agentgov.dev/v1 (got "agentgov.dev/v2")' },
    ]);
    expect(issues(envelope(BODY, 'apiVersion: agentgov.dev/v1\nkind: GovernanceServer\n'))).toEqual([
      { path: 'kind', message: 'unknown kind "GovernanceServer"; expected McpProxy' },
    ]);
  });
});
