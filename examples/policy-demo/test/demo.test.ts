import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const demo = fileURLToPath(new URL('..', import.meta.url));

describe('policy demo', () => {
  it('prints real decisions and a real hierarchy violation', () => {
    const r = spawnSync('pnpm', ['exec', 'tsx', 'src/main.ts'], { cwd: demo, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('valid: true');
    expect(r.stdout).toContain('"reason":"confidential data cannot be shared cross-org"');
    expect(r.stdout).toContain('"reason":"cross-tenant exchange is always blocked"');
    expect(r.stdout).toContain('POLICY_HIERARCHY_VIOLATION');
    expect(r.stdout).toContain('"parentValue": "internal"');
  }, 60_000);
});
