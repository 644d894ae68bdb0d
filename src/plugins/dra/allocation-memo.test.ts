// The remembered allocator shares answers between classes of equal content, and only between them.
import { describe, expect, it } from 'vitest';
import { driver, node, nodeSlice, upsert } from '../../../test/support/dra-state.ts';
import { initialState } from '../../cluster/reducer.ts';
import type { ResourceClaimInfo } from '../../model/dra-types.ts';
import { allocatedState } from './allocated-state.ts';
import { rememberingAllocator } from './allocation-memo.ts';
import { allocate } from './allocator/allocate.ts';
import { indexSlices } from './allocator/pools.ts';
import { celSelectorMatcher } from './selector-matcher.ts';

const selectors = [{ cel: { expression: `device.driver == "${driver}"` } }];
const config = [{ opaque: { driver, parameters: { mode: 'fast' } } }];

function setup() {
  const state = initialState();
  for (const name of ['gpu', 'twin'])
    upsert(state, 'DeviceClass', { metadata: { name }, spec: { selectors } });
  upsert(state, 'DeviceClass', { metadata: { name: 'other' }, spec: { selectors: [] } });
  for (const name of ['configured', 'configured-twin'])
    upsert(state, 'DeviceClass', { metadata: { name }, spec: { selectors, config } });
  upsert(state, 'ResourceSlice', nodeSlice('node-0', [{ name: 'gpu-0' }, { name: 'gpu-1' }]));
  const slices = indexSlices([...state.objects.ResourceSlice.values()], []);
  const info = node('node-0');
  /** One claim with a request per class (and the claim's own config, if given), both ways. */
  const claimRun = (classes: string[], claimConfig?: unknown[]) => {
    const requests = classes.map((c, i) => ({ name: `r${i}`, exactly: { deviceClassName: c } }));
    const devices = claimConfig === undefined ? { requests } : { requests, config: claimConfig };
    const claim = { name: 'c', namespace: 'ml', uid: 'u', spec: { devices } };
    const input = {
      claims: [claim as unknown as ResourceClaimInfo],
      classes: state.objects.DeviceClass,
      slices,
      allocated: allocatedState(state),
      matcher: celSelectorMatcher,
    };
    return {
      remembered: rememberingAllocator(input)(info),
      fresh: allocate({ ...input, node: info }),
    };
  };
  return {
    run: (...classes: string[]) => claimRun(classes),
    withConfig: (parameters: unknown, ...classes: string[]) =>
      claimRun(classes, [{ opaque: { driver, parameters } }]),
  };
}

describe('remembered answers across device classes', () => {
  it('gives a class of equal content the answer found for its twin', () => {
    const { run } = setup();
    const first = run('gpu').remembered;
    const twin = run('twin');
    expect(twin.remembered).toBe(first);
    expect(twin.remembered).toEqual(twin.fresh);
    expect(run('other').remembered).not.toBe(first);
    // Same selectors, but the class config reaches the allocation.
    const configured = run('configured');
    expect(configured.remembered).toEqual(configured.fresh);
  });

  it('keeps apart two requests on one class and two on twin classes (config is grouped by class)', () => {
    const { run } = setup();
    const same = run('configured', 'configured');
    const twins = run('configured', 'configured-twin');
    expect(same.remembered).toEqual(same.fresh);
    expect(twins.remembered).toEqual(twins.fresh);
    expect(twins.remembered).not.toEqual(same.remembered);
    expect(run('configured-twin', 'configured-twin').remembered).toBe(same.remembered);
  });

  it('keeps the claim config parameters as they are, even a field named deviceClassName', () => {
    const { withConfig } = setup();
    const first = withConfig({ deviceClassName: 'nope-a' }, 'gpu');
    const second = withConfig({ deviceClassName: 'nope-b' }, 'gpu');
    expect(first.remembered).toEqual(first.fresh);
    expect(second.remembered).toEqual(second.fresh);
    expect(second.remembered).not.toEqual(first.remembered);
  });
});
