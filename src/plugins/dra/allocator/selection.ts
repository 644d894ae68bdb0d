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
    const celDevice = {
      driver: slice.driver,
      attributes: device.attributes ?? {},
      capacity: device.capacity ?? {},
      ...(device.allowMultipleAllocations !== undefined && {
        allowMultipleAllocations: device.allowMultipleAllocations,
      }),
    };
    const owner = (i: number, runtime: boolean) =>
      `class ${source.class.name}: selector #${i}${runtime ? ` on device ${deviceId}` : ''}`;
    const claimOwner = (i: number, runtime: boolean) =>
      `claim ${source.claimName}: selector #${i}${runtime ? ` on device ${deviceId}` : ''}`;
    const ok =
      this.matchAll(source.class.selectors ?? [], celDevice, owner) &&
      this.matchAll(source.selectors, celDevice, claimOwner) &&
      (!slice.perDeviceNodeSelection ||
        nodeMatches(this.node, device.nodeName, device.allNodes, device.nodeSelector));
    this.cache.set(key, ok);
    return ok;
  }

  private matchAll(
    selectors: readonly DeviceSelector[],
    device: Parameters<SelectorMatcher>[1],
    owner: (i: number, runtime: boolean) => string,
  ): boolean {
    for (let i = 0; i < selectors.length; i++) {
      const expression = selectors[i]?.cel?.expression;
      if (expression === undefined) {
        throw new AllocatorError(
          `${owner(i, false)}: CEL expression empty (unsupported selector type?)`,
        );
      }
      const r = this.matcher(expression, device);
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
