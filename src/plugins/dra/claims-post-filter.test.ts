// DynamicResources' PostFilter for pods with claims: which unavailable claim it deallocates, and what the PostFilters then answer.
import { describe, expect, it } from 'vitest';
import { cluster, gpuClaim, node, pod, upsert } from '../../../test/support/dra-state.ts';
import type { ClusterState, PodInfo } from '../../cluster/types.ts';
import { newDiagnosis } from '../../framework/explain.ts';
import { runPostFilterPlugins } from '../../framework/post-filter.ts';
import type {
  CycleState,
  PostFilterArgs,
  PostFilterPlugin,
  Profile,
} from '../../framework/types.ts';
import { status } from '../../framework/types.ts';
import { dynamicResources, stillNotSchedulable } from '../dynamic-resources.ts';
import { claimsFilter, claimsPreFilter, deallocationCompleted } from './claims-cycle.ts';

/** An allocation of `on`'s gpu-`n`, usable on node `on` only. */
const onNode = (n: number, on: string) => ({
  devices: {
    results: [{ request: 'gpu', driver: 'gpu.example.com', pool: on, device: `gpu-${n}` }],
  },
  nodeSelector: {
    nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [on] }] }],
  },
});

/** Claim `name`, allocated on `on` (node-1), reserved for the pods of `holders` (uids). */
function allocated(
  state: ClusterState,
  name: string,
  device: number,
  holders: string[] = [],
  on = 'node-1',
) {
  const reservedFor = holders.map((uid) => ({ resource: 'pods', name: uid, uid }));
  const status = { allocation: onNode(device, on), ...(holders.length > 0 ? { reservedFor } : {}) };
  upsert(state, 'ResourceClaim', {
    ...gpuClaim(name),
    metadata: { name, namespace: 'ml', uid: `uid-${name}`, resourceVersion: `rv-${name}` },
    status,
  });
}

/** PreFilter, then Filter on node-2 (where node-1's allocations are unusable), as a failed cycle runs them. */
function failedOnNode2(p: PodInfo, state: ClusterState): CycleState {
  const cycle: CycleState = new Map();
  expect(claimsPreFilter(p, cycle, state).code).toBe('Success');
  expect(claimsFilter(p, node('node-2'), cycle).reasons).toEqual([
    'resourceclaim not available on the node',
  ]);
  return cycle;
}

const argsOf = (state: CycleState) =>
  ({ preFiltersCompleted: true, state }) as unknown as PostFilterArgs;

/** Two claims in the pod's order `names`. */
const claimsOf = (...names: string[]) => names.map((n) => ({ name: n, resourceClaimName: n }));

describe('DynamicResources PostFilter', () => {
  it('deallocates a claim reserved for nobody whose allocation pins the pod to a node that does not fit', () => {
    const state = cluster();
    allocated(state, 'c1', 1);
    const p = pod('p', claimsOf('c1'));
    const r = dynamicResources().postFilter(p, argsOf(failedOnNode2(p, state)));
    expect(r).toEqual({
      code: 'Unschedulable',
      plugin: 'DynamicResources',
      reasons: [deallocationCompleted],
      deallocate: { key: 'ml/c1', uid: 'uid-c1', resourceVersion: 'rv-c1' },
    });
    expect(deallocationCompleted).toBe('deallocation of ResourceClaim completed');
  });

  it('deallocates a claim reserved only for the pod itself', () => {
    const state = cluster();
    const p = pod('p', claimsOf('c1'));
    allocated(state, 'c1', 1, [p.uid]);
    const r = dynamicResources().postFilter(p, argsOf(failedOnNode2(p, state)));
    expect(r.deallocate?.key).toBe('ml/c1');
  });

  it('leaves a claim reserved for another pod: Unschedulable with no message (1.37), "still not schedulable" before', () => {
    const state = cluster();
    allocated(state, 'c1', 1, ['someone-else']);
    const p = pod('p', claimsOf('c1'));
    const cycle = failedOnNode2(p, state);
    expect(dynamicResources().postFilter(p, argsOf(cycle))).toEqual(
      status('Unschedulable', 'DynamicResources'),
    );
    expect(dynamicResources(undefined, '1.36').postFilter(p, argsOf(cycle))).toEqual(
      status('Unschedulable', 'DynamicResources', stillNotSchedulable),
    );
  });

  it('leaves a claim reserved for the pod and another one', () => {
    const state = cluster();
    const p = pod('p', claimsOf('c1'));
    allocated(state, 'c1', 1, [p.uid, 'someone-else']);
    const r = dynamicResources().postFilter(p, argsOf(failedOnNode2(p, state)));
    expect(r.deallocate).toBeUndefined();
  });

  it('deallocates nothing when no Filter found a claim unavailable', () => {
    const state = cluster();
    allocated(state, 'c1', 1);
    const p = pod('p', claimsOf('c1'));
    const cycle: CycleState = new Map();
    claimsPreFilter(p, cycle, state);
    expect(claimsFilter(p, node('node-1'), cycle).code).toBe('Success');
    expect(dynamicResources().postFilter(p, argsOf(cycle)).deallocate).toBeUndefined();
  });

  it('picks the first unavailable claim in the pod’s order, skipping one another pod holds', () => {
    const state = cluster();
    allocated(state, 'c3', 0);
    allocated(state, 'c2', 1);
    allocated(state, 'c4', 0, ['someone-else']);
    // c4 first in the pod's order but held; then c2 before c3 (not the claims' creation order).
    const p = pod('p', claimsOf('c4', 'c2', 'c3'));
    const r = dynamicResources().postFilter(p, argsOf(failedOnNode2(p, state)));
    expect(r.deallocate?.key).toBe('ml/c2');
  });

  it('picks by the pod’s order, not by the order nodes found the claims unavailable', () => {
    const state = cluster();
    allocated(state, 'c1', 0, [], 'node-2');
    allocated(state, 'c2', 1);
    const p = pod('p', claimsOf('c1', 'c2'));
    // node-2 finds c2 (second) unavailable first, node-1 then c1 (first).
    const cycle = failedOnNode2(p, state);
    expect(claimsFilter(p, node('node-1'), cycle).code).toBe('UnschedulableAndUnresolvable');
    const r = dynamicResources().postFilter(p, argsOf(cycle));
    expect(r.deallocate?.key).toBe('ml/c1');
  });

  it('keeps the deallocation when DefaultPreemption runs after it and nominates', () => {
    const state = cluster();
    allocated(state, 'c1', 1);
    const p = pod('p', claimsOf('c1'));
    const cycle = failedOnNode2(p, state);
    const seen: string[] = [];
    const preemption: PostFilterPlugin = {
      name: 'DefaultPreemption',
      postFilter: () => {
        seen.push('DefaultPreemption');
        return {
          code: 'Success',
          reasons: [],
          nomination: { node: 'node-1', victims: [], clearNominated: [] },
        };
      },
    };
    const profile = { postFilter: [dynamicResources(), preemption] } as unknown as Profile;
    const r = runPostFilterPlugins(
      {
        preFiltersCompleted: true,
        pod: p,
        snapshot: state as never,
        ctx: { profile, rng: {} as never, cursor: { next: 0 }, percentageOfNodesToScore: 0 },
        state: cycle,
        filters: [],
        running: {} as never,
      },
      newDiagnosis(),
    );
    expect(seen).toEqual(['DefaultPreemption']);
    expect(r).toMatchObject({ code: 'Success', deallocate: { key: 'ml/c1' } });
  });
});
