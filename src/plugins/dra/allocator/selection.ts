// Whether a device satisfies a request: class selectors, then request selectors, then per-device node selection.

import type {
  Device,
  DeviceClassInfo,
  DeviceSelector,
  ResourceSliceInfo,
} from '../../../model/dra-types.ts';
import type { NodeLike } from '../../node-selector.ts';
import { nodeMatches } from './pools.ts';
import { AllocatorError, type SelectorMatcher } from './types.ts';

/** The selectors of one request or subrequest, with its class and the claim it belongs to. */
export interface SelectorSource {
  readonly claimName: string;
  readonly class: DeviceClassInfo;
  readonly selectors: readonly DeviceSelector[];
}

type MatchResult = ReturnType<SelectorMatcher>;

/**
 * CEL answers by matcher, device object and `driver` + expression, kept across Allocate
 * calls and cycles: a selector's answer on a device depends on nothing else (CEL is pure),
 * and a slice parsed again brings new device objects, so an answer is never stale.
 */
const answers = new WeakMap<SelectorMatcher, WeakMap<Device, Map<string, MatchResult>>>();

function answersFor(matcher: SelectorMatcher, device: Device): Map<string, MatchResult> {
  let byDevice = answers.get(matcher);
  if (byDevice === undefined) {
    byDevice = new WeakMap();
    answers.set(matcher, byDevice);
  }
  let known = byDevice.get(device);
  if (known === undefined) {
    known = new Map();
    byDevice.set(device, known);
  }
  return known;
}

/**
 * Checks devices against requests for one Allocate call, caching each (request, device)
 * answer as kube's deviceMatchesRequest does. CEL errors are fatal, worded as kube words them.
 */
export class DeviceSelection {
  private readonly cache = new Map<string, boolean>();

  constructor(
    private readonly matcher: SelectorMatcher,
    private readonly node: NodeLike,
  ) {}

  /** True when the device (of `slice`, id `deviceId`) is selectable for the request `requestKey`. */
  isSelectable(
    requestKey: string,
    source: SelectorSource,
    slice: ResourceSliceInfo,
    device: Device,
    deviceId: string,
  ): boolean {
    const key = `${requestKey}|${deviceId}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const target = { device, driver: slice.driver };
    const owner = (i: number, runtime: boolean) =>
      `class ${source.class.name}: selector #${i}${runtime ? ` on device ${deviceId}` : ''}`;
    const claimOwner = (i: number, runtime: boolean) =>
      `claim ${source.claimName}: selector #${i}${runtime ? ` on device ${deviceId}` : ''}`;
    const ok =
      this.matchAll(source.class.selectors ?? [], target, owner) &&
      this.matchAll(source.selectors, target, claimOwner) &&
      (!slice.perDeviceNodeSelection ||
        nodeMatches(this.node, device.nodeName, device.allNodes, device.nodeSelector));
    this.cache.set(key, ok);
    return ok;
  }

  private matchAll(
    selectors: readonly DeviceSelector[],
    target: { device: Device; driver: string },
    owner: (i: number, runtime: boolean) => string,
  ): boolean {
    if (selectors.length === 0) return true;
    const known = answersFor(this.matcher, target.device);
    for (let i = 0; i < selectors.length; i++) {
      const expression = selectors[i]?.cel?.expression;
      if (expression === undefined) {
        throw new AllocatorError(
          `${owner(i, false)}: CEL expression empty (unsupported selector type?)`,
        );
      }
      const key = `${target.driver}\u0000${expression}`;
      let r = known.get(key);
      if (r === undefined) {
        r = this.matcher(expression, celDeviceOf(target.device, target.driver));
        known.set(key, r);
      }
      if ('error' in r) {
        const runtime = r.compileError !== true;
        const what = runtime ? 'CEL runtime error' : 'CEL compile error';
        throw new AllocatorError(`${owner(i, runtime)}: ${what}: ${r.error}`);
      }
      if (!r.matches) return false;
    }
    return true;
  }
}

/** The device as CEL sees it (kube's cel.Device). */
function celDeviceOf(device: Device, driver: string): Parameters<SelectorMatcher>[1] {
  return {
    driver,
    attributes: device.attributes ?? {},
    capacity: device.capacity ?? {},
    ...(device.allowMultipleAllocations !== undefined && {
      allowMultipleAllocations: device.allowMultipleAllocations,
    }),
  };
}
