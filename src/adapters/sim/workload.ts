// Generates a SchedulingBasic-like workload: identical nodes, small pods, seeded.

import { seededRng } from '../../framework/rng.ts';
import type { NodeObject, PodObject } from '../../model/objects.ts';

/** A generated cluster. */
export interface Workload {
  nodes: NodeObject[];
  pods: PodObject[];
}

const zones = ['zone-a', 'zone-b', 'zone-c'];
const cpuChoices = ['100m', '100m', '200m', '250m', '500m'];
const memoryChoices = ['128Mi', '256Mi', '500Mi', '500Mi', '1Gi'];

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/**
 * `nodeCount` identical nodes (4 cpu, 32Gi, 110 pods, spread over three zones) and
 * `podCount` pending pods for `schedulerName` with small requests drawn from `seed`.
 * Creation timestamps increase by one second per pod.
 */
export function generateWorkload(
  nodeCount: number,
  podCount: number,
  seed: number,
  schedulerName = 'berth',
): Workload {
  const rng = seededRng(seed);
  const nodeWidth = String(Math.max(nodeCount - 1, 0)).length;
  const podWidth = String(Math.max(podCount - 1, 0)).length;
  const nodes: NodeObject[] = [];
  for (let i = 0; i < nodeCount; i++) {
    const name = `node-${pad(i, nodeWidth)}`;
    nodes.push({
      metadata: {
        name,
        labels: {
          'kubernetes.io/hostname': name,
          'topology.kubernetes.io/zone': zones[i % zones.length] as string,
        },
      },
      status: {
        allocatable: { cpu: '4', memory: '32Gi', pods: '110', 'ephemeral-storage': '100Gi' },
      },
    });
  }
  const pods: PodObject[] = [];
  const epoch = Date.UTC(2026, 0, 1) / 1000;
  for (let i = 0; i < podCount; i++) {
    const cpu = cpuChoices[rng.nextInt(cpuChoices.length)] as string;
    const memory = memoryChoices[rng.nextInt(memoryChoices.length)] as string;
    pods.push({
      metadata: {
        name: `pod-${pad(i, podWidth)}`,
        namespace: 'default',
        uid: `uid-${i}`,
        creationTimestamp: new Date((epoch + i) * 1000).toISOString().replace('.000Z', 'Z'),
      },
      spec: {
        schedulerName,
        containers: [{ name: 'app', resources: { requests: { cpu, memory } } }],
      },
      status: { phase: 'Pending' },
    });
  }
  return { nodes, pods };
}
