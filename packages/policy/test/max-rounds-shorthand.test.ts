import { describe, expect, it } from 'vitest';
import { effectiveAlong, parsePolicyContent, validateChain } from '../src/index';

const content = (yaml: string) => parsePolicyContent('agent-to-agent', yaml)._unsafeUnwrap();

describe('max_rounds: one number for every exchange type, or a map per type', () => {
  it('expands one number to every exchange type; a map stays as written', () => {
    expect(content('max_rounds: 2\n')).toEqual({
      max_rounds: { information_query: 2, commitment_request: 2, meeting_scheduling: 2 },
    });
    expect(content('max_rounds: {information_query: 3, commitment_request: 2}\n')).toEqual({
      max_rounds: { information_query: 3, commitment_request: 2 },
    });
  });

  it('checks the number against the per-type rule and names the type', () => {
    const r = parsePolicyContent('agent-to-agent', 'max_rounds: 0\n');
    expect(r.isErr()).toBe(true);
    expect(r._unsafeUnwrapErr().message).toContain('max_rounds.information_query');
    expect(parsePolicyContent('agent-to-agent', 'max_rounds: two\n').isErr()).toBe(true);
  });

  it('restricts like the map: one number under a per-type parent is checked type by type', () => {
    const parent = content(
      'enabled: true\nmax_rounds: {information_query: 3, commitment_request: 2, meeting_scheduling: 1}\n',
    );
    const ok = content('max_rounds: 1\n');
    const tooMany = content('max_rounds: 3\n');
    const chain = (child: unknown) => [
      { ref: { scope: 'enterprise' as const, scopeId: 'acme' }, policies: [{ content: parent }] },
      { ref: { scope: 'org' as const, scopeId: 'eng' }, policies: [{ content: child }] },
    ];
    expect(validateChain('agent-to-agent', chain(ok))).toEqual([]);
    const violations = validateChain('agent-to-agent', chain(tooMany));
    expect(violations.map((v) => v.key).sort()).toEqual([
      'max_rounds.commitment_request',
      'max_rounds.meeting_scheduling',
    ]);
    expect(effectiveAlong('agent-to-agent', chain(ok)).max_rounds).toEqual({
      information_query: 1,
      commitment_request: 1,
      meeting_scheduling: 1,
    });
  });
});
