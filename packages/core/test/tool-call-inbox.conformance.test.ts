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
  it('an inbox that does not keep the arguments (or cuts them, or lists without them) fails the arguments case', async () => {
    const ARGS =
      'arguments: the canonical arguments given to request come back from get, list and decide; none given, none kept';
    class Dropped extends InMemoryToolCallInbox {
      override request(...args: Parameters<InMemoryToolCallInbox['request']>) {
        const { arguments: _dropped, ...rest } = args[0];
        return super.request(rest, args[1]);
      }
    }
    class Cut extends InMemoryToolCallInbox {
      override request(...args: Parameters<InMemoryToolCallInbox['request']>) {
        const text = args[0].arguments;
        return super.request({ ...args[0], ...(text ? { arguments: text.slice(0, 2000) } : {}) }, args[1]);
      }
    }
    class NotListed extends InMemoryToolCallInbox {
      override async list(...args: Parameters<InMemoryToolCallInbox['list']>) {
        return (await super.list(...args)).map(({ arguments: _a, ...rest }) => rest as ToolApproval);
      }
    }
    class EmptyWhenNone extends InMemoryToolCallInbox {
      override request(...args: Parameters<InMemoryToolCallInbox['request']>) {
        return super.request({ ...args[0], arguments: args[0].arguments ?? '' }, args[1]);
      }
    }
    for (const broken of [new Dropped(), new Cut(), new NotListed(), new EmptyWhenNone()])
      await expect(suite.cases[ARGS](broken), broken.constructor.name).rejects.toThrow();
  });
});
