// Device taints: DeviceTaintRules patched into slices, and whether a request tolerates a device's taints.

import type {
  Device,
  DeviceTaint,
  DeviceToleration,
  ResourceSliceInfo,
} from '../../../model/dra-types.ts';
import type { TaintRules } from './types.ts';

/**
 * The slice with every matching rule's taint appended to its devices' taints, as kube's
 * ResourceSlice tracker patches slices for the scheduler. A rule without a device selector
 * matches nothing; its unset driver, pool and device fields match every value. Returns the
 * slice itself when no rule applies.
 */
export function applyTaintRules(slice: ResourceSliceInfo, rules: TaintRules): ResourceSliceInfo {
  let devices: Device[] | undefined;
  for (const rule of rules) {
    const sel = rule.deviceSelector;
    if (sel === undefined) continue;
    if (sel.driver !== undefined && sel.driver !== slice.driver) continue;
    if (sel.pool !== undefined && sel.pool !== slice.pool.name) continue;
    slice.devices.forEach((device, i) => {
      if (sel.device !== undefined && sel.device !== device.name) return;
      devices ??= slice.devices.map((d) => ({ ...d }));
      const patched = devices[i] as Device;
      patched.taints = [...(patched.taints ?? []), rule.taint];
    });
  }
  return devices === undefined ? slice : { ...slice, devices };
}

/** kube's resourceclaim.ToleratesTaint. */
export function toleratesTaint(toleration: DeviceToleration, taint: DeviceTaint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? '') {
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** True when a NoSchedule or NoExecute taint of the device is not tolerated (None never blocks). */
export function taintPreventsAllocation(
  device: Device,
  tolerations: readonly DeviceToleration[] | undefined,
): boolean {
  for (const taint of device.taints ?? []) {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (!(tolerations ?? []).some((t) => toleratesTaint(t, taint))) return true;
  }
  return false;
}
