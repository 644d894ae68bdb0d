// NodeResourcesFit beside a resident pod mid-resize: the node fits or not depending on the emulated release's charge.
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import { podInfoFromObject } from '../cluster/pod-info.ts';
import { evolve, getPodByKey, initialState } from '../cluster/reducer.ts';
import type { ClusterState, NodeInfo, PodInfo } from '../cluster/types.ts';
import { success } from '../framework/types.ts';
import type { KubeRelease } from '../model/kube-release.ts';
import type { PodObject } from '../model/objects.ts';
import { fitsRequest, name } from './node-resources-fit.ts';

/**
 * Node n1 (4 cpu) holding `resident`, folded by a reducer charging as `release` does.
 */
function nodeWith(
  resident: PodObject,
  release: KubeRelease,
): { state: ClusterState; node: NodeInfo } {
  const state = initialState(release);
  evolve(state, { seq: 1, time: 0, event: { type: 'NodeUpserted', node: nodeObject('n1') } });
  evolve(state, { seq: 2, time: 0, event: { type: 'PodUpserted', pod: resident } });
  const node = state.nodes.get('n1');
  if (node === undefined) throw new Error('n1 missing');
  return { state, node };
}

function pending(cpu: string): PodInfo {
  const info = podInfoFromObject(podObject('incoming', { requests: { cpu } }));
  if ('rejected' in info) throw new Error(info.rejected);
  return info;
}

/** A running pod on n1 whose two containers resize opposite ways (see requests-resize.test). */
function resizingResident(): PodObject {
  const pod = podObject('resident', {
    nodeName: 'n1',
    phase: 'Running',
    containers: [
      { name: 'a', resources: { requests: { cpu: '2' } } },
      { name: 'b', resources: { requests: { cpu: '1' } } },
    ],
  });
  pod.status = {
    phase: 'Running',
    conditions: [{ type: 'PodResizePending', status: 'True', reason: 'Deferred' }],
    containerStatuses: [
      { name: 'a', allocatedResources: { cpu: '1' }, resources: { requests: { cpu: '1' } } },
      { name: 'b', allocatedResources: { cpu: '1' }, resources: { requests: { cpu: '2' } } },
    ],
  };
  return pod;
}

describe('NodeResourcesFit beside a resident pod mid-resize', () => {
  it('1.34–1.36 charge it 4 cpu (the node is full); 1.37 charges 3 and a 1-cpu pod fits', () => {
    for (const release of ['1.34', '1.35', '1.36'] as const) {
      const { node } = nodeWith(resizingResident(), release);
      expect(node.requested.milliCPU).toBe(4000);
      expect(fitsRequest(pending('1'), node)).toEqual({
        code: 'Unschedulable',
        reasons: ['Insufficient cpu'],
        plugin: name,
      });
    }
    const { node } = nodeWith(resizingResident(), '1.37');
    expect(node.requested.milliCPU).toBe(3000);
    expect(fitsRequest(pending('1'), node)).toEqual(success);
  });

  it('an allocation without actuated resources holds the node from 1.37: a 1-cpu pod no longer fits', () => {
    const resident = podObject('resident', {
      nodeName: 'n1',
      containers: [{ name: 'app', resources: { requests: { cpu: '1' } } }],
    });
    resident.status = {
      phase: 'Running',
      containerStatuses: [{ name: 'app', allocatedResources: { cpu: '4' } }],
    };
    expect(fitsRequest(pending('1'), nodeWith(resident, '1.36').node)).toEqual(success);
    const { state, node } = nodeWith(resident, '1.37');
    expect(getPodByKey(state, 'default/resident')?.info.requests.milliCPU).toBe(4000);
    expect(fitsRequest(pending('1'), node)).toMatchObject({ reasons: ['Insufficient cpu'] });
  });

  it('the charge follows the resize: when the status catches up, 1.37 releases the difference', () => {
    const { state, node } = nodeWith(resizingResident(), '1.37');
    const done = resizingResident();
    done.status = {
      phase: 'Running',
      containerStatuses: [
        { name: 'a', allocatedResources: { cpu: '2' }, resources: { requests: { cpu: '2' } } },
        { name: 'b', allocatedResources: { cpu: '1' }, resources: { requests: { cpu: '1' } } },
      ],
    };
    evolve(state, { seq: 3, time: 0, event: { type: 'PodUpserted', pod: done } });
    expect(node.requested.milliCPU).toBe(3000);
    expect(fitsRequest(pending('1'), node)).toEqual(success);
    expect(fitsRequest(pending('1100m'), node)).toMatchObject({ reasons: ['Insufficient cpu'] });
  });
});
