// Total parsers for the pod fields the queue and later plugins read: gates and host ports.
import { isRecord, nonEmptyString } from './fields.ts';
import type { HostPort } from './types.ts';

const noStrings: readonly string[] = Object.freeze([]);
const noPorts: readonly HostPort[] = Object.freeze([]);

/** `spec.schedulingGates[].name`; entries without a name still gate the pod. Never throws. */
export function parseSchedulingGates(value: unknown): readonly string[] {
  if (!Array.isArray(value) || value.length === 0) return noStrings;
  return value.map((gate) => (isRecord(gate) ? (nonEmptyString(gate.name) ?? '') : ''));
}

function positive(v: unknown): v is number {
  return typeof v === 'number' && v > 0;
}

function containerHostPorts(
  containers: unknown,
  sidecarsOnly: boolean,
  hostNetwork: boolean,
  out: HostPort[],
): void {
  if (!Array.isArray(containers)) return;
  for (const c of containers) {
    if (!isRecord(c) || !Array.isArray(c.ports)) continue;
    // kube counts an init container's ports only while it runs beside the app: a sidecar.
    if (sidecarsOnly && c.restartPolicy !== 'Always') continue;
    for (const p of c.ports) {
      if (!isRecord(p)) continue;
      // With host networking the API server defaults an absent or zero hostPort to the
      // containerPort; objects that skipped defaulting (files, tests) get the same here.
      const hostPortUnset = p.hostPort === undefined || p.hostPort === null || p.hostPort === 0;
      const port = hostNetwork && hostPortUnset ? p.containerPort : p.hostPort;
      if (!positive(port)) continue;
      out.push({
        hostIP: nonEmptyString(p.hostIP) ?? '0.0.0.0',
        protocol: nonEmptyString(p.protocol) ?? 'TCP',
        port,
      });
    }
  }
}

/**
 * The host ports the pod holds on its node, as kube 1.34's GetHostPorts and NodeInfo's
 * used ports count them: ports with hostPort > 0 of the sidecar init containers
 * (`restartPolicy: Always`), then of the app containers; ordinary init containers finish
 * before the app starts and hold none. Under `spec.hostNetwork` an unset hostPort is the
 * containerPort. An empty hostIP means all addresses (`0.0.0.0`), an empty protocol TCP.
 * Never throws.
 */
export function parseHostPorts(spec: Record<string, unknown>): readonly HostPort[] {
  const out: HostPort[] = [];
  const hostNetwork = spec.hostNetwork === true;
  containerHostPorts(spec.initContainers, true, hostNetwork, out);
  containerHostPorts(spec.containers, false, hostNetwork, out);
  return out.length === 0 ? noPorts : out;
}
