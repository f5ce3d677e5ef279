import { describe, expect, it } from 'vitest';
import { McpConfigError, parseMcpConfigYaml } from '../src/index';

describe('configuration', () => {
  it('parses stdio and http upstreams with defaults', () => {
    const c = parseMcpConfigYaml(`
identity: {tenantId: acme, userId: alice}
model: {provider: anthropic, model: claude}
upstreams:
  - namespace: notes
    transport: stdio
    command: node
    args: [server.js]
    classification: confidential
    tools: {read_file: {classification: restricted}}
  - namespace: web-search
    transport: http
    url: https://search.example/mcp
limits: {callTimeoutMs: 5000}
`);
    expect(c.upstreams[0]).toMatchObject({
      transport: 'stdio',
      maxRestarts: 3,
      classification: 'confidential',
    });
    expect(c.upstreams[1]).toMatchObject({ transport: 'http', classification: 'internal' });
    expect(c.limits).toMatchObject({ callTimeoutMs: 5000, maxArgumentBytes: 65536 });
    expect(c.auditArguments).toBe(false);
  });

  it.each([
    [
      'a namespace with _ (would make names ambiguous)',
      'upstreams: [{namespace: a_b, transport: stdio, command: x}]',
      'upstreams.0.namespace',
    ],
    [
      'an upper-case namespace',
      'upstreams: [{namespace: Notes, transport: stdio, command: x}]',
      'upstreams.0.namespace',
    ],
    [
      'duplicate namespaces',
      'upstreams: [{namespace: a, transport: stdio, command: x}, {namespace: a, transport: stdio, command: y}]',
      'upstreams.1.namespace',
    ],
    [
      'an unknown key',
      'upstreams: [{namespace: a, transport: stdio, command: x, shell: true}]',
      'upstreams.0',
    ],
    [
      'a non-http url',
      'upstreams: [{namespace: a, transport: http, url: "file:///etc/passwd"}]',
      'upstreams.0.url',
    ],
    ['no upstreams', 'upstreams: []', 'upstreams'],
    ['not YAML', 'upstreams: [', ''],
  ])('refuses %s, naming the path', (_what, text, path) => {
    let error: unknown;
    try {
      parseMcpConfigYaml(text, 'mcp.yaml');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(McpConfigError);
    expect((error as McpConfigError).issues.map((i) => i.path)).toContain(path);
    expect((error as Error).message).toMatch(/^mcp\.yaml: /);
  });
});
