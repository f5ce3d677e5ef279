import { expect } from 'vitest';
import { defineConformanceSuite, STRING_255, UNICODE_SAMPLES } from '../testing/conformance';
import { FIXTURE_EPOCH } from '../testing/fixtures';
import type { InstanceRegistry } from './port';

const at = (ms: number): Date => new Date(FIXTURE_EPOCH + ms);
const TTL = 30_000;

const cases = {
  'heartbeat: the instance is counted until its expiry (exclusive)': async (reg: InstanceRegistry) => {
    expect(await reg.countLive(at(0))).toBe(0);
    await reg.heartbeat('gw-1', at(0), TTL);
    expect(await reg.countLive(at(0))).toBe(1);
    expect(await reg.countLive(at(TTL - 1))).toBe(1);
    expect(await reg.countLive(at(TTL))).toBe(0);
    expect(await reg.countLive(at(TTL + 60_000))).toBe(0);
  },
  'heartbeat: a later heartbeat extends the expiry; an instance is counted once': async (
    reg: InstanceRegistry,
  ) => {
    await reg.heartbeat('gw-1', at(0), TTL);
    await reg.heartbeat('gw-1', at(20_000), TTL);
    expect(await reg.countLive(at(20_000))).toBe(1);
    expect(await reg.countLive(at(TTL + 5_000))).toBe(1);
    expect(await reg.countLive(at(20_000 + TTL))).toBe(0);
  },
  'heartbeat: an expired instance comes back with a new heartbeat': async (reg: InstanceRegistry) => {
    await reg.heartbeat('gw-1', at(0), TTL);
    expect(await reg.countLive(at(TTL * 3))).toBe(0);
    await reg.heartbeat('gw-1', at(TTL * 3), TTL);
    expect(await reg.countLive(at(TTL * 3))).toBe(1);
  },
  'two ids: counted separately, each with its own expiry': async (reg: InstanceRegistry) => {
    await reg.heartbeat('gw-1', at(0), TTL);
    await reg.heartbeat('gw-2', at(10_000), TTL);
    expect(await reg.countLive(at(10_000))).toBe(2);
    expect(await reg.countLive(at(TTL))).toBe(1);
    expect(await reg.countLive(at(10_000 + TTL))).toBe(0);
  },
  'remove: the instance is no longer counted; others stay; unknown ids are a no-op': async (
    reg: InstanceRegistry,
  ) => {
    await reg.heartbeat('gw-1', at(0), TTL);
    await reg.heartbeat('gw-2', at(0), TTL);
    await reg.remove('gw-1');
    expect(await reg.countLive(at(1))).toBe(1);
    await reg.remove('gw-1');
    await reg.remove('never-seen');
    expect(await reg.countLive(at(1))).toBe(1);
    await reg.remove('gw-2');
    expect(await reg.countLive(at(1))).toBe(0);
  },
  'ids: unicode and 255-character ids are distinct instances': async (reg: InstanceRegistry) => {
    const ids = [...UNICODE_SAMPLES, STRING_255, 'GW-1', 'gw-1'];
    for (const id of ids) await reg.heartbeat(id, at(0), TTL);
    expect(await reg.countLive(at(0))).toBe(ids.length);
    await reg.remove(STRING_255);
    expect(await reg.countLive(at(0))).toBe(ids.length - 1);
  },
} satisfies Record<string, (reg: InstanceRegistry) => Promise<void>>;

export type InstanceRegistryCaseName = keyof typeof cases;
export const describeInstanceRegistryConformance = defineConformanceSuite<
  InstanceRegistry,
  InstanceRegistryCaseName
>('InstanceRegistry', cases);
