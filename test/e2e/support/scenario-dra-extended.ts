// Extended resources backed by DRA in the DRA differential's scenarios: device-plugin nodes and `ext-` pods asking for example.com/gpu or a class's implicit name.
import {
  type DraContainer,
  type DraPodObj,
  type DraScenario,
  gpu,
  gpuResource,
  mig,
} from './scenario-dra.ts';
import { rngFrom } from './scenarios.ts';

const implicit = (cls: string) => `deviceclass.resource.kubernetes.io/${cls}`;

/** A container asking `count` of `resource` (request and limit, as the API requires). */
function extContainer(
  name: string,
  resource: string,
  count: number,
  sidecar = false,
): DraContainer {
  const n = String(count);
  return {
    name,
    image: 'registry.k8s.io/pause:3.10',
    ...(sidecar ? { restartPolicy: 'Always' as const } : {}),
    resources: { requests: { cpu: '100m', [resource]: n }, limits: { [resource]: n } },
  };
}

/**
 * Extended resources backed by DRA, from a stream of their own (the claim pods' draws stay
 * as they were): about a third of the nodes list `example.com/gpu: 1` or `2` in their allocatable
 * (a device plugin's; those keep NodeResourcesFit's path though they have DRA devices too),
 * and 2–4 `ext-` pods (often on such a node), each pinned by its nodeSelector, ask for `example.com/gpu` (the GPU
 * class's explicit name) or a class's implicit `deviceclass.resource.kubernetes.io/<class>`,
 * sometimes from a second app container, a sidecar or a short-lived init container too. They
 * go in at random places among the claim pods. No pod mixes claims and extended resources:
 * kube 1.37.2 then allocates an empty special claim on a device plugin's node and fails
 * PreBind ("nil or empty request mappings").
 */
export function addExtendedPods(s: DraScenario): void {
  const r = rngFrom(s.seed ^ 0x0e7e_0000);
  const names = s.nodes.map((n) => n.metadata.name);
  const plugin: string[] = [];
  for (const n of s.nodes)
    if (r.chance(0.35)) {
      plugin.push(n.metadata.name);
      const count = String(r.range(1, 2));
      s.covers.add('extended resource in node allocatable');
      const status = n.status as {
        capacity: Record<string, string>;
        allocatable: Record<string, string>;
      };
      n.status = {
        capacity: { ...status.capacity, [gpuResource]: count },
        allocatable: { ...status.allocatable, [gpuResource]: count },
      };
    }
  for (let k = 0; k < r.range(2, 4); k++) {
    const resource = r.pick([gpuResource, gpuResource, implicit(gpu), implicit(mig)]);
    s.covers.add(
      resource === gpuResource ? 'extended resource (explicit)' : 'extended resource (implicit)',
    );
    const containers = [extContainer('main', resource, r.range(1, 2))];
    const initContainers: DraContainer[] = [];
    const extra = r.int(5);
    if (extra === 0) {
      s.covers.add('extended resource: two containers');
      containers.push(extContainer('second', resource, 1));
    } else if (extra === 1) {
      s.covers.add('extended resource: init container');
      initContainers.push(extContainer('init', resource, r.range(1, 3)));
    } else if (extra === 2) {
      s.covers.add('extended resource: sidecar');
      initContainers.push(extContainer('sidecar', resource, 1, true));
    }
    const pod: DraPodObj = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `ext-${k}`, namespace: s.namespace },
      spec: {
        schedulerName: 'default-scheduler',
        terminationGracePeriodSeconds: 0,
        // Often a device plugin's node, so that its count runs out (Insufficient example.com/gpu).
        nodeSelector: {
          'kubernetes.io/hostname':
            plugin.length > 0 && r.chance(0.4) ? r.pick(plugin) : r.pick(names),
        },
        ...(initContainers.length > 0 ? { initContainers } : {}),
        containers,
      },
    };
    s.pending.splice(r.int(s.pending.length + 1), 0, pod);
  }
}
