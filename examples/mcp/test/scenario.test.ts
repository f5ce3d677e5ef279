import { describe, expect, it } from 'vitest';
import { runScenario } from '../src/scenario';

describe('examples/mcp', () => {
  it('runs the scenario through a real stdio upstream: hidden block, approval once, notice, audit, proof', async () => {
    const lines: string[] = [];
    const r = await runScenario((l) => lines.push(l));
    expect(r.listed).toEqual({
      notes__read_file: 'notify',
      notes__search_notes: 'autonomous',
      notes__send_message: 'approve',
    });
    expect(r.search).toEqual({ hits: ['plan.md'] });
    expect(r.blocked).toBe('policy_denied');
    expect(r.approval).toMatchObject({ firstRefusal: 'approval_required', replay: 'approval_required' });
    expect(r.approval.afterApproval).toContain('message sent to bob');
    expect(r.notice.recorded).toBe(1);
    expect(r.notice.message).toMatchObject({ tool: 'notes__read_file', userId: 'alice' });
    expect(r.audit.map((e) => [e.tool, e.outcome])).toEqual([
      ['notes__search_notes', 'success'],
      ['notes__delete_file', 'denied'],
      ['notes__send_message', 'pending_approval'],
      ['notes__send_message', 'success'],
      ['notes__send_message', 'pending_approval'],
      ['notes__read_file', 'success'],
    ]);
    expect(r.audit[3]).toMatchObject({ approver: 'alice' });
    // the three calls that ran were each recorded before they went upstream
    expect(r.writeAhead).toEqual({ entries: 3, everyRunPaired: true });
    expect(r.proofVerified).toBe(true);
    expect(lines.length).toBeGreaterThan(5);
  });
});
