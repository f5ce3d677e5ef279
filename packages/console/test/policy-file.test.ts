/**
 * The policy editor's refusal of a `status` it cannot apply: PUT and POST take no status (a
 * written policy is active) and only DELETE deprecates, so any other status in the file is an
 * error on its line that says what to do instead.
 */
import { describe, expect, it } from 'vitest';
import { checkPolicyFile, statusError } from '../app/src/policy-file';

const FILE =
  'scope: team\nscopeId: emea\ndomain: features\nname: t\nversion: 1.0.0\ncontent:\n  briefings: true\n';

function check(
  status: string | undefined,
  current: { status: 'active' | 'draft' | 'deprecated' } | undefined,
) {
  const text = status === undefined ? FILE : `${FILE}status: ${status}\n`;
  const { file, errors } = checkPolicyFile(text);
  expect(errors).toEqual([]);
  return statusError(text, file!, current);
}

describe('statusError', () => {
  it('no status, or the status the policy has (active for a new one): nothing to refuse', () => {
    expect(check(undefined, { status: 'active' })).toBeUndefined();
    expect(check(undefined, undefined)).toBeUndefined();
    expect(check('active', { status: 'active' })).toBeUndefined();
    expect(check('active', undefined)).toBeUndefined();
    expect(check('draft', { status: 'draft' })).toBeUndefined();
  });

  it('deprecated on an active policy: refused on its line, pointing at Deprecate', () => {
    expect(check('deprecated', { status: 'active' })).toEqual({
      line: 8,
      message: expect.stringMatching(/^status: deprecated cannot be applied from the editor.*use Deprecate/),
    });
    expect(check('deprecated', undefined)?.message).toMatch(/use Deprecate/);
  });

  it('any other change of status, or a new policy that is not active: refused on its line', () => {
    expect(check('draft', { status: 'active' })).toEqual({
      line: 8,
      message: "status: the editor cannot change a policy's status (it is active); remove this line.",
    });
    expect(check('draft', undefined)?.message).toMatch(/^status: a policy created here is active/);
  });
});
