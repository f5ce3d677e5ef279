import { describe, expect, it } from 'vitest';
import { verifyTenant } from '../src/index';
import { entryInput, setup } from './helpers';

describe('smoke', () => {
  it('appends, checkpoints and verifies', async () => {
    const { log, store, secrets } = setup();
    for (let i = 0; i < 5; i++)
      expect((await log.append(entryInput({ requestId: `r${i}` }))).isOk()).toBe(true);
    const cp = await log.checkpoint('t1');
    expect(cp.isOk()).toBe(true);
    const report = await verifyTenant(store, 't1', { secrets });
    expect(report).toMatchObject({ ok: true, checked: 5, identifiers: 'checked' });
    expect(report.checkpoints).toEqual([{ treeSize: 5, ok: true, signature: 'valid', rootMatches: true }]);
  });
});
