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

function containerHostPorts(containers: unknown, out: HostPort[]): void {
  if (!Array.isArray(containers)) return;
  for (const c of containers) {
    if (!isRecord(c) || !Array.isArray(c.ports)) continue;
    for (const p of c.ports) {
      if (!isRecord(p) || typeof p.hostPort !== 'number' || !(p.hostPort > 0)) continue;
      out.push({
        hostIP: nonEmptyString(p.hostIP) ?? '0.0.0.0',
        protocol: nonEmptyString(p.protocol) ?? 'TCP',
        port: p.hostPort,
      });
    }
  }
}

/** Host ports (hostPort > 0) of the pod's containers and init containers. Never throws. */
export function parseHostPorts(spec: Record<string, unknown>): readonly HostPort[] {
  const out: HostPort[] = [];
  containerHostPorts(spec.initContainers, out);
  containerHostPorts(spec.containers, out);
  return out.length === 0 ? noPorts : out;
}
