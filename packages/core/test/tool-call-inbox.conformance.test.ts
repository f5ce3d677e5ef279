/** The ToolCallInbox conformance suite against the in-memory inbox, and broken inboxes it rejects. */
import { describe, expect, it } from 'vitest';
import { InMemoryToolCallInbox, type ToolApproval } from '../src/index';
import { describeToolCallInboxConformance as suite } from '../src/testing/index';

suite('memory', async () => ({ store: new InMemoryToolCallInbox() }));

describe('ToolCallInbox conformance catches broken inboxes', () => {
  it('a consume that checks, yields, then marks (not atomic) fails the concurrency case', async () => {
    class Racy extends InMemoryToolCallInbox {
      override async consume(...args: Parameters<InMemoryToolCallInbox['consume']>) {
        const [key, now] = args;
        const found = (await this.list(key.tenantId, now, { status: 'approved' })).find(
          (a) => a.userId === key.userId && a.argumentsDigest === key.argumentsDigest,
        );
        if (!found) return undefined;
        await new Promise((r) => setImmediate(r));
        return { ...found, status: 'consumed' } as ToolApproval;
      }
    }
    await expect(
      suite.cases['consume: concurrent consumers of one approval — exactly one gets it'](new Racy()),
    ).rejects.toThrow();
  });
  it('an inbox that ignores expiry fails the expiry cases', async () => {
    class NoExpiry extends InMemoryToolCallInbox {
      override consume(...args: Parameters<InMemoryToolCallInbox['consume']>) {
        return super.consume(args[0], new Date(0));
      }
    }
    await expect(
      suite.cases['consume: a rejected approval, or an approved one past its expiry, is never consumed'](
        new NoExpiry(),
      ),
    ).rejects.toThrow();
  });
  it('an inbox that ignores the arguments digest fails the key case', async () => {
    class NoDigest extends InMemoryToolCallInbox {
      override consume(...args: Parameters<InMemoryToolCallInbox['consume']>) {
        return super.consume({ ...args[0], argumentsDigest: `sha256:${'ab'.repeat(32)}` }, args[1]);
      }
    }
    await expect(
      suite.cases['consume: only an approved, unexpired approval of exactly this key, once'](new NoDigest()),
    ).rejects.toThrow();
  });
});
