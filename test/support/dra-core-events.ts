// DRA objects as the core's input events: class `gpu` and a node's pool of GPUs, for core tests with claims.
import type { InputEvent } from '../../src/events/types.ts';

/** The DRA driver of the class and the pools. */
export const gpuDriver = 'gpu.example.com';

/** An ObjectUpserted of `kind`. */
export const objectEvent = (kind: string, o: unknown): InputEvent =>
  ({ type: 'ObjectUpserted', kind, object: o }) as InputEvent;

/** DeviceClass `gpu` (the driver's devices) and node `node`'s pool of `count` GPUs `gpu-<i>`. */
export function gpuDevices(node: string, count: number): InputEvent[] {
  return [
    objectEvent('DeviceClass', {
      metadata: { name: 'gpu' },
      spec: { selectors: [{ cel: { expression: `device.driver == "${gpuDriver}"` } }] },
    }),
    objectEvent('ResourceSlice', {
      metadata: { name: `${node}-gpus` },
      spec: {
        driver: gpuDriver,
        nodeName: node,
        pool: { name: node, generation: 1, resourceSliceCount: 1 },
        devices: Array.from({ length: count }, (_, i) => ({ name: `gpu-${i}` })),
      },
    }),
  ];
}
